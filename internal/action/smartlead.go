package action

import (
	"context"
	"net/url"
	"strings"

	"github.com/trawlhq/trawl/internal/integration"
)

// KindSmartleadAddLead adds a lead to a Smartlead campaign.
const KindSmartleadAddLead = "smartlead_add_lead_to_campaign"

// smartleadSpecs are the Smartlead actions.
func smartleadSpecs() []Spec {
	return []Spec{{
		Kind: KindSmartleadAddLead, Name: "Add lead to Smartlead campaign", Category: CategoryMessaging, Connection: "smartlead",
		Description: "Adds a lead to a Smartlead campaign (POST /campaigns/{campaign_id}/leads) through the account's Smartlead connection. " +
			"Smartlead deduplicates by email: a lead already in the campaign is left as it is and the output says so.",
		Inputs: []Input{
			{Name: "campaign_id", Title: "Campaign", Required: true, Type: TypeString, Description: "The campaign's id (GET /v1/integrations/smartlead/campaigns)."},
			{Name: "email", Title: "Email", Required: true, Type: TypeString},
			{Name: "first_name", Title: "First name", Type: TypeString},
			{Name: "last_name", Title: "Last name", Type: TypeString},
			{Name: "company_name", Title: "Company name", Type: TypeString},
			{Name: "linkedin_profile", Title: "LinkedIn profile URL", Type: TypeString},
			{Name: "custom_fields", Title: "Custom fields", Type: TypeObject, Description: "Field name to value, for the sequence's {{variables}}."},
			{Name: "ignore_global_block_list", Title: "Ignore the global block list", Type: TypeBoolean},
			{Name: "ignore_unsubscribe_list", Title: "Ignore the unsubscribe list", Type: TypeBoolean},
			{Name: "ignore_duplicate_leads_in_other_campaign", Title: "Add leads other campaigns have", Type: TypeBoolean, Description: "By default a lead another campaign has is skipped (skipped_reason in_other_campaign)."},
		},
		Check: func(in map[string]any) []Problem {
			return checkID(in, "campaign_id", "a Smartlead campaign id (digits)", isDigits)
		},
		Outputs: leadOutputs(map[string]any{"email": typed("string", "")}, "campaign_id", "email"),
		Run:     smartleadAddLead,
	}}
}

// smartleadAddAnswer is Smartlead's answer to POST /campaigns/{id}/leads.
type smartleadAddAnswer struct {
	OK                     bool     `json:"ok"`
	UploadCount            int      `json:"upload_count"`
	TotalLeads             int      `json:"total_leads"`
	AlreadyAdded           int      `json:"already_added_to_campaign"`
	DuplicateCount         int      `json:"duplicate_count"`
	InvalidEmailCount      int      `json:"invalid_email_count"`
	BlockCount             int      `json:"block_count"`
	BounceCount            int      `json:"bounce_count"`
	UnsubscribedLeads      []string `json:"unsubscribed_leads"`
	LeadLimitExhausted     bool     `json:"is_lead_limit_exhausted"`
	LeadImportStoppedCount int      `json:"lead_import_stopped_count"`
}

// smartleadOutcome maps the counts of a one-lead upload to the output:
// added, already there, or skipped and why. A lead Smartlead refuses as
// invalid or for want of lead credits fails the step.
func smartleadOutcome(a smartleadAddAnswer) (map[string]any, error) {
	out := map[string]any{"added": false, "already_in_campaign": false}
	switch {
	case a.AlreadyAdded > 0:
		out["already_in_campaign"] = true
	case a.UploadCount > 0 || a.TotalLeads > 0:
		out["added"] = true
	case a.InvalidEmailCount > 0:
		return nil, failf(CodeInvalidInput, false, "Smartlead refused the email as invalid")
	case a.LeadLimitExhausted || a.LeadImportStoppedCount > 0:
		return nil, failf(CodeUpstream, false, "Smartlead: the account's lead limit is exhausted")
	case a.BlockCount > 0:
		out["skipped_reason"] = "blocked"
	case len(a.UnsubscribedLeads) > 0:
		out["skipped_reason"] = "unsubscribed"
	case a.BounceCount > 0:
		out["skipped_reason"] = "bounced"
	case a.DuplicateCount > 0:
		out["skipped_reason"] = "in_other_campaign"
	default:
		out["skipped_reason"] = "not_uploaded"
	}
	return out, nil
}

// smartleadAddLead uploads one lead. Smartlead's dedupe by email makes a
// retried or repeated step idempotent; it has no idempotency header.
func smartleadAddLead(ctx context.Context, call Call) (map[string]any, error) {
	in := call.Inputs
	if err := requireInput(in, "campaign_id", "email"); err != nil {
		return nil, err
	}
	campaign := inputID(in, "campaign_id")
	if !isDigits(campaign) {
		return nil, failf(CodeInvalidInput, false, "campaign_id must be a Smartlead campaign id (digits)")
	}
	email := strings.TrimSpace(inputString(in, "email"))
	lead := map[string]any{"email": email}
	setStrings(lead, in, map[string]string{"first_name": "first_name", "last_name": "last_name",
		"company_name": "company_name", "linkedin_profile": "linkedin_profile"})
	if cf, err := stringMap(in, "custom_fields"); err != nil {
		return nil, err
	} else if len(cf) > 0 {
		lead["custom_fields"] = cf
	}
	settings := map[string]any{}
	for _, k := range []string{"ignore_global_block_list", "ignore_unsubscribe_list", "ignore_duplicate_leads_in_other_campaign"} {
		b, _ := in[k].(bool)
		settings[k] = b
	}
	c, err := connection(ctx, call, integration.Smartlead.Name)
	if err != nil {
		return nil, err
	}
	var answer smartleadAddAnswer
	err = c.Do(ctx, integration.Request{Method: "POST", Path: "/campaigns/" + url.PathEscape(campaign) + "/leads",
		Body: map[string]any{"lead_list": []any{lead}, "settings": settings}}, &answer)
	if err != nil {
		return nil, serviceFailure(err)
	}
	out, err := smartleadOutcome(answer)
	if err != nil {
		return nil, err
	}
	out["campaign_id"], out["email"] = campaign, email
	return out, nil
}
