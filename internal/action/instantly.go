package action

import (
	"context"
	"strings"

	"github.com/trawlhq/trawl/internal/integration"
)

// KindInstantlyAddLead adds a lead to an Instantly campaign.
const KindInstantlyAddLead = "instantly_add_lead_to_campaign"

// instantlySpecs are the Instantly actions.
func instantlySpecs() []Spec {
	return []Spec{{
		Kind: KindInstantlyAddLead, Name: "Add lead to Instantly campaign", Category: CategoryMessaging, Connection: "instantly",
		Description: "Adds a lead to an Instantly campaign (API v2, POST /api/v2/leads with skip_if_in_campaign) through the account's Instantly connection. " +
			"A lead the campaign has already (by email) is left as it is and the output says so.",
		Inputs: []Input{
			{Name: "campaign_id", Title: "Campaign", Required: true, Type: TypeString, Description: "The campaign's id, a UUID (GET /v1/integrations/instantly/campaigns)."},
			{Name: "email", Title: "Email", Required: true, Type: TypeString},
			{Name: "first_name", Title: "First name", Type: TypeString},
			{Name: "last_name", Title: "Last name", Type: TypeString},
			{Name: "company_name", Title: "Company name", Type: TypeString},
			{Name: "personalization", Title: "Personalization", Type: TypeString, Description: "The lead's {{personalization}} line."},
			{Name: "website", Title: "Website", Type: TypeString},
			{Name: "phone", Title: "Phone", Type: TypeString},
			{Name: "custom_variables", Title: "Custom variables", Type: TypeObject, Description: "Name to value (string, number, boolean), for the sequence's {{variables}}."},
		},
		Outputs: leadOutputs(map[string]any{"id": typed("string", "The lead's id in Instantly."), "email": typed("string", "")}, "id", "campaign_id", "email"),
		Check: func(in map[string]any) []Problem {
			return checkID(in, "campaign_id", "an Instantly campaign id (a UUID)", isUUID)
		},
		Run: instantlyAddLead,
	}}
}

// instantlyLead is the part of an Instantly lead the action reads.
type instantlyLead struct {
	ID       string `json:"id"`
	Email    string `json:"email"`
	Campaign string `json:"campaign"`
}

// instantlyAddLead looks the email up in the campaign (POST
// /api/v2/leads/list) and creates the lead only when it is not there,
// with skip_if_in_campaign so that a create racing another (a retried
// step whose first answer was lost) still makes no duplicate.
func instantlyAddLead(ctx context.Context, call Call) (map[string]any, error) {
	in := call.Inputs
	if err := requireInput(in, "campaign_id", "email"); err != nil {
		return nil, err
	}
	campaign, email := inputID(in, "campaign_id"), strings.TrimSpace(inputString(in, "email"))
	if !isUUID(campaign) {
		return nil, failf(CodeInvalidInput, false, "campaign_id must be an Instantly campaign id (a UUID)")
	}
	body := map[string]any{"campaign": campaign, "email": email, "skip_if_in_campaign": true}
	setStrings(body, in, map[string]string{"first_name": "first_name", "last_name": "last_name", "company_name": "company_name",
		"personalization": "personalization", "website": "website", "phone": "phone"})
	if cv, ok := in["custom_variables"].(map[string]any); ok && len(cv) > 0 {
		for k, v := range cv {
			switch v.(type) {
			case string, float64, bool, nil:
			default:
				return nil, failf(CodeInvalidInput, false, "custom_variables: %s must be a string, number or boolean", k)
			}
		}
		body["custom_variables"] = cv
	}
	c, err := connection(ctx, call, integration.Instantly.Name)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"campaign_id": campaign, "email": email, "added": false, "already_in_campaign": false}
	var found struct {
		Items []instantlyLead `json:"items"`
	}
	err = c.Do(ctx, integration.Request{Method: "POST", Path: "/api/v2/leads/list",
		Body: map[string]any{"campaign": campaign, "contacts": []string{email}, "limit": 1}}, &found)
	if err != nil {
		return nil, serviceFailure(err)
	}
	for _, l := range found.Items {
		if strings.EqualFold(l.Email, email) {
			out["id"], out["already_in_campaign"] = l.ID, true
			return out, nil
		}
	}
	var lead instantlyLead
	if err := c.Do(ctx, integration.Request{Method: "POST", Path: "/api/v2/leads", Body: body}, &lead); err != nil {
		return nil, serviceFailure(err)
	}
	if lead.ID == "" {
		return nil, failf(CodeUpstream, false, "Instantly answered without the lead's id")
	}
	out["id"], out["added"] = lead.ID, true
	return out, nil
}
