package action

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/internal/integration"
)

// Helpers of the outreach actions (Smartlead, Instantly, lemlist,
// HeyReach): each adds one lead to a campaign, idempotently, through the
// service's own deduplication, and says whether the lead was added or was
// there already.

// inputID reads an id input given as a string or a JSON number ("" when absent).
func inputID(in map[string]any, name string) string {
	switch v := in[name].(type) {
	case string:
		return strings.TrimSpace(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case json.Number:
		return v.String()
	}
	return ""
}

// requireInput fails the step when a required input resolved to nothing
// (a template whose value was empty).
func requireInput(in map[string]any, names ...string) error {
	for _, n := range names {
		if inputID(in, n) == "" {
			return failf(CodeInvalidInput, false, "%s is required", n)
		}
	}
	return nil
}

// setStrings copies the non-empty string inputs into body under the
// service's names (input → field).
func setStrings(body, in map[string]any, names map[string]string) {
	for input, field := range names {
		if s := strings.TrimSpace(inputString(in, input)); s != "" {
			body[field] = s
		}
	}
}

// isDigits tells whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// serviceSaid tells whether err is the service's 4xx answer whose message
// holds phrase (in any case).
func serviceSaid(err error, phrase string) bool {
	var e *integration.Error
	return errors.As(err, &e) && e.Status >= 400 && e.Status < 500 &&
		strings.Contains(strings.ToLower(e.Message), strings.ToLower(phrase))
}

// checkID is a Check rule: the input, when given as a literal (not a
// template, which resolves only at run time), must pass ok.
func checkID(in map[string]any, name, want string, ok func(string) bool) []Problem {
	s, isString := in[name].(string)
	if !isString || isTemplate(s) || ok(strings.TrimSpace(s)) {
		return nil
	}
	return []Problem{problemf(name, "must be %s", want)}
}

// isUUID tells whether s is shaped as a UUID (Instantly's ids).
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if r != '-' {
				return false
			}
		case !strings.ContainsRune("0123456789abcdefABCDEF", r):
			return false
		}
	}
	return true
}

// leadOutputs is the output schema shared by the add-lead actions, with
// each service's own members added.
func leadOutputs(extra map[string]any, required ...string) map[string]any {
	props := map[string]any{
		"added":               typed("boolean", "The lead was added by this step."),
		"already_in_campaign": typed("boolean", "The lead was in the campaign already; nothing changed."),
		"campaign_id":         typed("string", "The campaign."),
		"skipped_reason":      typed("string", "Why the service added nothing although the lead was not in the campaign (blocked, unsubscribed, in_other_campaign…)."),
	}
	for k, v := range extra {
		props[k] = v
	}
	return object(props, append([]string{"added", "already_in_campaign"}, required...)...)
}
