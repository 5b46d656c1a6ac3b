package action

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/internal/integration"
)

// KindHeyReachAddLead adds a LinkedIn lead to a HeyReach list or campaign.
const KindHeyReachAddLead = "heyreach_add_lead"

// heyReachSpecs are the HeyReach actions.
func heyReachSpecs() []Spec {
	return []Spec{{
		Kind: KindHeyReachAddLead, Name: "Add lead to HeyReach", Category: CategoryMessaging, Connection: "heyreach",
		Description: "Adds a LinkedIn lead to a HeyReach lead list (POST /list/AddLeadsToListV2) or campaign (POST /campaign/AddLeadsToCampaignV2) through the account's HeyReach connection. " +
			"HeyReach deduplicates by profile URL: a lead already there is updated, not added again, and the output says so.",
		Inputs: []Input{
			{Name: "list_id", Title: "Lead list", Type: TypeString, Description: "A list's id (GET /v1/integrations/heyreach/campaigns, kind list); give list_id or campaign_id."},
			{Name: "campaign_id", Title: "Campaign", Type: TypeString, Description: "A campaign's id (kind campaign); give list_id or campaign_id."},
			{Name: "linkedin_account_id", Title: "LinkedIn sender account", Type: TypeNumber, Description: "The sender account that reaches the lead (campaigns only; HeyReach picks one when absent)."},
			{Name: "profile_url", Title: "LinkedIn profile URL", Required: true, Type: TypeString},
			{Name: "first_name", Title: "First name", Type: TypeString},
			{Name: "last_name", Title: "Last name", Type: TypeString},
			{Name: "company_name", Title: "Company name", Type: TypeString},
			{Name: "position", Title: "Position", Type: TypeString},
			{Name: "email_address", Title: "Email", Type: TypeString},
			{Name: "custom_fields", Title: "Custom fields", Type: TypeObject, Description: "Name (letters, digits, underscores) to value, for the sequence's {variables}."},
		},
		Check: heyReachCheck,
		Outputs: object(map[string]any{
			"added":           typed("boolean", "The lead was added by this step."),
			"already_present": typed("boolean", "The list or campaign had the lead (by profile URL); HeyReach updated it."),
			"list_id":         typed("string", "The list, when the lead went to a list."),
			"campaign_id":     typed("string", "The campaign, when the lead went to a campaign."),
			"profile_url":     typed("string", ""),
		}, "added", "already_present", "profile_url"),
		Run: heyReachAddLead,
	}}
}

// heyReachCheck: exactly one of list_id and campaign_id; a sender account
// only with a campaign.
func heyReachCheck(in map[string]any) []Problem {
	_, list := in["list_id"]
	_, campaign := in["campaign_id"]
	_, account := in["linkedin_account_id"]
	var out []Problem
	switch {
	case list && campaign:
		out = append(out, problemf("", "give list_id or campaign_id, not both"))
	case !list && !campaign:
		out = append(out, problemf("list_id", "is required unless campaign_id is given"))
	case account && !campaign:
		out = append(out, problemf("linkedin_account_id", "is for campaigns only (with campaign_id)"))
	}
	out = append(out, checkID(in, "list_id", "a HeyReach list id (digits)", isDigits)...)
	return append(out, checkID(in, "campaign_id", "a HeyReach campaign id (digits)", isDigits)...)
}

// heyReachCounts is the answer of HeyReach's V2 add calls.
type heyReachCounts struct {
	Added   int `json:"addedLeadsCount"`
	Updated int `json:"updatedLeadsCount"`
	Failed  int `json:"failedLeadsCount"`
}

// heyReachAddLead adds the lead to the list or the campaign. HeyReach
// keys leads by profile URL, so a repeated or retried step updates the
// lead rather than adding it twice.
func heyReachAddLead(ctx context.Context, call Call) (map[string]any, error) {
	in := call.Inputs
	if err := requireInput(in, "profile_url"); err != nil {
		return nil, err
	}
	listID, campaignID := inputID(in, "list_id"), inputID(in, "campaign_id")
	if (listID == "") == (campaignID == "") {
		return nil, failf(CodeInvalidInput, false, "give list_id or campaign_id (exactly one)")
	}
	profile := strings.TrimSpace(inputString(in, "profile_url"))
	lead := map[string]any{"profileUrl": profile}
	setStrings(lead, in, map[string]string{"first_name": "firstName", "last_name": "lastName", "company_name": "companyName",
		"position": "position", "email_address": "emailAddress"})
	fields, err := stringMap(in, "custom_fields")
	if err != nil {
		return nil, err
	}
	if len(fields) > 0 {
		names := make([]string, 0, len(fields))
		for k := range fields {
			names = append(names, k)
		}
		slices.Sort(names)
		custom := make([]map[string]string, 0, len(names))
		for _, k := range names {
			custom = append(custom, map[string]string{"name": k, "value": fields[k]})
		}
		lead["customUserFields"] = custom
	}
	req := integration.Request{Method: "POST"}
	out := map[string]any{"profile_url": profile}
	if listID != "" {
		id, err := strconv.ParseInt(listID, 10, 64)
		if err != nil {
			return nil, failf(CodeInvalidInput, false, "list_id must be a HeyReach list id (a number)")
		}
		req.Path, req.Body, out["list_id"] = "/list/AddLeadsToListV2", map[string]any{"listId": id, "leads": []any{lead}}, listID
	} else {
		id, err := strconv.ParseInt(campaignID, 10, 64)
		if err != nil {
			return nil, failf(CodeInvalidInput, false, "campaign_id must be a HeyReach campaign id (a number)")
		}
		pair := map[string]any{"lead": lead}
		if acct := inputID(in, "linkedin_account_id"); acct != "" {
			n, err := strconv.ParseInt(acct, 10, 64)
			if err != nil {
				return nil, failf(CodeInvalidInput, false, "linkedin_account_id must be a number")
			}
			pair["linkedInAccountId"] = n
		}
		req.Path, req.Body, out["campaign_id"] = "/campaign/AddLeadsToCampaignV2", map[string]any{"campaignId": id, "accountLeadPairs": []any{pair}}, campaignID
	}
	c, err := connection(ctx, call, integration.HeyReach.Name)
	if err != nil {
		return nil, err
	}
	var counts heyReachCounts
	if err := c.Do(ctx, req, &counts); err != nil {
		return nil, serviceFailure(err)
	}
	if counts.Added == 0 && counts.Updated == 0 {
		return nil, failf(CodeUpstream, false, "HeyReach did not add the lead (%d failed)", counts.Failed)
	}
	out["added"], out["already_present"] = counts.Added > 0, counts.Added == 0 && counts.Updated > 0
	return out, nil
}
