package action

import (
	"encoding/json"
	"testing"
)

func TestSmartleadOutcome(t *testing.T) {
	for _, tc := range []struct {
		answer      string
		added, here bool
		reason      string
		code        string
	}{
		{`{"ok":true,"upload_count":1,"total_leads":1}`, true, false, "", ""},
		{`{"ok":true,"upload_count":1,"total_leads":1,"already_added_to_campaign":1}`, false, true, "", ""},
		{`{"ok":true,"upload_count":0,"total_leads":0,"already_added_to_campaign":1}`, false, true, "", ""},
		{`{"ok":true,"duplicate_count":1}`, false, false, "in_other_campaign", ""},
		{`{"ok":true,"block_count":1}`, false, false, "blocked", ""},
		{`{"ok":true,"unsubscribed_leads":["a@b.co"]}`, false, false, "unsubscribed", ""},
		{`{"ok":true,"invalid_email_count":1,"invalid_emails":["x"]}`, false, false, "", CodeInvalidInput},
		{`{"ok":true,"is_lead_limit_exhausted":true,"lead_import_stopped_count":1}`, false, false, "", CodeUpstream},
		{`{}`, false, false, "not_uploaded", ""},
	} {
		var a smartleadAddAnswer
		if err := json.Unmarshal([]byte(tc.answer), &a); err != nil {
			t.Fatal(err)
		}
		out, err := smartleadOutcome(a)
		if tc.code != "" {
			if e, ok := err.(*Error); !ok || e.Code != tc.code || e.Retryable {
				t.Fatalf("%s: error %v, want %s", tc.answer, err, tc.code)
			}
			continue
		}
		reason, _ := out["skipped_reason"].(string)
		if err != nil || out["added"] != tc.added || out["already_in_campaign"] != tc.here || reason != tc.reason {
			t.Fatalf("%s: %v, %v", tc.answer, out, err)
		}
	}
}

func FuzzSmartleadOutcome(f *testing.F) {
	f.Add([]byte(`{"upload_count":1}`))
	f.Add([]byte(`{"already_added_to_campaign":1,"upload_count":1}`))
	f.Add([]byte(`{"unsubscribed_leads":null,"block_count":-1}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var a smartleadAddAnswer
		if json.Unmarshal(body, &a) != nil {
			return
		}
		out, err := smartleadOutcome(a)
		if (err == nil) == (out == nil) {
			t.Fatalf("output %v with error %v", out, err)
		}
		if err == nil && out["added"] == true && out["already_in_campaign"] == true {
			t.Fatalf("added and already there: %v", out)
		}
	})
}

func TestHeyReachCheck(t *testing.T) {
	for _, tc := range []struct {
		in   map[string]any
		want int
	}{
		{map[string]any{"list_id": "1"}, 0},
		{map[string]any{"campaign_id": Dynamic{}, "linkedin_account_id": 3.0}, 0},
		{map[string]any{}, 1},
		{map[string]any{"list_id": "1", "campaign_id": "2"}, 1},
		{map[string]any{"list_id": "1", "linkedin_account_id": 3.0}, 1},
	} {
		if got := heyReachCheck(tc.in); len(got) != tc.want {
			t.Fatalf("%v: %+v", tc.in, got)
		}
	}
}

func TestOutreachIDChecks(t *testing.T) {
	specs := map[string]Spec{}
	for _, s := range integrationSpecs() {
		specs[s.Kind] = s
	}
	for _, tc := range []struct {
		kind string
		in   map[string]any
		want int
	}{
		{KindSmartleadAddLead, map[string]any{"campaign_id": "123"}, 0},
		{KindSmartleadAddLead, map[string]any{"campaign_id": 123.0}, 0},
		{KindSmartleadAddLead, map[string]any{"campaign_id": "{{ trigger.source }}"}, 0},
		{KindSmartleadAddLead, map[string]any{"campaign_id": Dynamic{}}, 0},
		{KindSmartleadAddLead, map[string]any{"campaign_id": "cam_1"}, 1},
		{KindInstantlyAddLead, map[string]any{"campaign_id": "019cc043-e39c-7d91-a325-6615db0e1b14"}, 0},
		{KindInstantlyAddLead, map[string]any{"campaign_id": "123"}, 1},
		{KindHeyReachAddLead, map[string]any{"list_id": "12"}, 0},
		{KindHeyReachAddLead, map[string]any{"list_id": "l-12"}, 1},
		{KindHeyReachAddLead, map[string]any{"campaign_id": "x"}, 1},
	} {
		if got := specs[tc.kind].Check(tc.in); len(got) != tc.want {
			t.Errorf("%s %v: %+v", tc.kind, tc.in, got)
		}
	}
}
