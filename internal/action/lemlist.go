package action

import (
	"context"
	"net/url"
	"strings"

	"github.com/trawlhq/trawl/internal/integration"
)

// KindLemlistAddLead adds a lead to a lemlist campaign.
const KindLemlistAddLead = "lemlist_add_lead_to_campaign"

// lemlistSpecs are the lemlist actions.
func lemlistSpecs() []Spec {
	return []Spec{{
		Kind: KindLemlistAddLead, Name: "Add lead to lemlist campaign", Category: CategoryMessaging, Connection: "lemlist",
		Description: "Adds a lead to a lemlist campaign (POST /campaigns/{campaignId}/leads/{email}) through the account's lemlist connection. " +
			"A lead already in the campaign is left as it is and the output says so; with deduplicate (the default) a lead another campaign has is skipped.",
		Inputs: []Input{
			{Name: "campaign_id", Title: "Campaign", Required: true, Type: TypeString, Description: "The campaign's id, cam_… (GET /v1/integrations/lemlist/campaigns)."},
			{Name: "email", Title: "Email", Required: true, Type: TypeString},
			{Name: "first_name", Title: "First name", Type: TypeString},
			{Name: "last_name", Title: "Last name", Type: TypeString},
			{Name: "company_name", Title: "Company name", Type: TypeString},
			{Name: "company_domain", Title: "Company domain", Type: TypeString},
			{Name: "job_title", Title: "Job title", Type: TypeString},
			{Name: "linkedin_url", Title: "LinkedIn URL", Type: TypeString},
			{Name: "phone", Title: "Phone", Type: TypeString},
			{Name: "icebreaker", Title: "Icebreaker", Type: TypeString},
			{Name: "variables", Title: "Custom variables", Type: TypeObject, Description: "More lead variables (name to string value) for the sequence's {{variables}}."},
			{Name: "deduplicate", Title: "Skip leads other campaigns have", Type: TypeBoolean, Description: "Default true: lemlist's deduplicate (skipped_reason in_other_campaign)."},
		},
		Outputs: leadOutputs(map[string]any{"id": typed("string", "The lead's id in lemlist (lea_…), when added."), "email": typed("string", "")}, "campaign_id", "email"),
		Run:     lemlistAddLead,
	}}
}

// lemlistReserved are the lead fields lemlist names itself; variables may not replace them.
var lemlistReserved = map[string]bool{"email": true, "firstName": true, "lastName": true, "companyName": true,
	"companyDomain": true, "jobTitle": true, "linkedinUrl": true, "phone": true, "icebreaker": true, "picture": true}

// lemlistAddLead creates the lead in the campaign. lemlist refuses a lead
// the campaign has ("Lead already in the campaign"), which makes a
// repeated or retried step idempotent: that answer is already_in_campaign.
func lemlistAddLead(ctx context.Context, call Call) (map[string]any, error) {
	in := call.Inputs
	if err := requireInput(in, "campaign_id", "email"); err != nil {
		return nil, err
	}
	campaign, email := inputID(in, "campaign_id"), strings.TrimSpace(inputString(in, "email"))
	body := map[string]any{}
	vars, err := stringMap(in, "variables")
	if err != nil {
		return nil, err
	}
	for k, v := range vars {
		if lemlistReserved[k] {
			return nil, failf(CodeInvalidInput, false, "variables: %s is a lead field; use its own input", k)
		}
		body[k] = v
	}
	setStrings(body, in, map[string]string{"first_name": "firstName", "last_name": "lastName", "company_name": "companyName",
		"company_domain": "companyDomain", "job_title": "jobTitle", "linkedin_url": "linkedinUrl", "phone": "phone", "icebreaker": "icebreaker"})
	dedupe := true
	if b, ok := in["deduplicate"].(bool); ok {
		dedupe = b
	}
	q := url.Values{}
	if dedupe {
		q.Set("deduplicate", "true")
	}
	c, err := connection(ctx, call, integration.Lemlist.Name)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"campaign_id": campaign, "email": email, "added": false, "already_in_campaign": false}
	var lead struct {
		ID string `json:"_id"`
	}
	err = c.Do(ctx, integration.Request{Method: "POST", Path: "/campaigns/" + url.PathEscape(campaign) + "/leads/" + url.PathEscape(email),
		Query: q, Body: body}, &lead)
	switch {
	case serviceSaid(err, "already in the campaign"):
		out["already_in_campaign"] = true
	case serviceSaid(err, "already in other campaign") || serviceSaid(err, "already in another campaign"):
		out["skipped_reason"] = "in_other_campaign"
	case err != nil:
		return nil, serviceFailure(err)
	default:
		out["added"], out["id"] = true, lead.ID
	}
	return out, nil
}
