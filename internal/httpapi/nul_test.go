package httpapi

import (
	"slices"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/store"
)

// TestNULInBodies: refuseNUL names every string of a body that holds
// NUL, and only those; what it read of the body still reaches the
// handler, and a body over the size limit is still refused as such.
func TestNULInBodies(t *testing.T) {
	s, st := newProbeServer(t, store.SQLite)
	key := newKey(t, st, auth.PlanCustom, auth.PermAll)
	nul := Detail{Message: "must not contain the NUL character"}
	at := func(field, ptr string) Detail { d := nul; d.Field, d.Pointer = field, ptr; return d }
	for _, c := range []struct {
		name, body string
		status     int
		details    []Detail
	}{
		{"strings", `{"name": "a\u0000", "tags": ["ok", "\u0000", "b\u0000c"]}`, 400,
			[]Detail{at("body.name", "/name"), at("body.tags[1]", "/tags/1"), at("body.tags[2]", "/tags/2")}},
		{"member name", `{"name": "x", "t\u0000": 1}`, 400,
			[]Detail{{Field: "body", Pointer: "/", Message: "must not have a member name that contains the NUL character"}}},
		{"an escaped backslash", `{"name": "\\u0000 is text"}`, 200, nil},
		{"no NUL", `{"name": "x", "tags": ["a"]}`, 200, nil},
		{"oversize", `{"name": "\u0000` + strings.Repeat("x", 1<<20) + `"}`, 413, nil},
	} {
		rec, eb := send(t, s, key, c.body)
		if rec.Code != c.status || !slices.Equal(eb.Error.Details.Fields, c.details) && c.details != nil {
			t.Errorf("%s: %d %s, want %d %+v", c.name, rec.Code, rec.Body, c.status, c.details)
		}
		if c.status == 200 && !strings.Contains(rec.Body.String(), `"name"`) {
			t.Errorf("%s: the handler did not get the body: %s", c.name, rec.Body)
		}
	}
}
