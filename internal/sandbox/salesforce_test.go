package sandbox

import (
	"strings"
	"testing"
)

// TestSalesforceIDs: ids have Salesforce's shape and case-safe suffix
// (the docs' example 00190000001pPvH → 00190000001pPvHAAU).
func TestSalesforceIDs(t *testing.T) {
	if got := salesforceIDSuffix("00190000001pPvH"); got != "AAU" {
		t.Fatalf("suffix = %q, want AAU", got)
	}
	seen := map[string]bool{}
	for n := uint64(0); n < 2000; n += 7 {
		id := salesforceID("00Q", n*1_234_567)
		if len(id) != 18 || !strings.HasPrefix(id, "00Q") || !salesforceIDOK(id) || !salesforceIDOK(id[:15]) || seen[id] {
			t.Fatalf("id %q of %d", id, n)
		}
		seen[id] = true
	}
	if salesforceIDOK("00Q5g00000ABCDEZZZ") || salesforceIDOK("missing-lead") {
		t.Fatal("a bad id passed")
	}
	if org := salesforceOrgID("00D5g0000012345!AQabc"); org != "00D5g0000012345" {
		t.Fatalf("org of a token = %q", org)
	}
}
