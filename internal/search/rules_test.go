package search_test

import (
	"slices"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/search"
)

func fields(ps search.Problems) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Field
	}
	return out
}

// The rules report every problem at once, by field path inside the body,
// the same whichever caller (API, CLI, workflow action) hands the body in.
func TestMicroblogRulesListEveryProblemByField(t *testing.T) {
	media := "gif"
	_, ps := search.MicroblogPosts{Keywords: []string{"ok", " "}, MaxResults: 5, TimeFrame: "yesterday", Frequency: "sometimes",
		SearchType: "Best", HasMedia: &media, FromUsers: []string{"not a user"}}.Definition(search.Rules{ForCreate: true})
	want := []string{"name", "keywords[1]", "time_frame", "max_results", "frequency", "search_type", "has_media", "from_users[0]"}
	for _, f := range want {
		if !slices.Contains(fields(ps), f) {
			t.Errorf("problems %v do not name %s", ps, f)
		}
	}
	d, ps := search.MicroblogPosts{Keywords: []string{"CRM"}, Frequency: "hourly", SearchType: "top"}.Definition(search.Rules{})
	if len(ps) != 0 || d.Frequency != search.Hourly || d.SearchType != "Top" || d.TimeFrame != "past-week" || d.MaxResults != 50 {
		t.Fatalf("preview body without name = %+v, %v", d, ps)
	}
	if g := d.Gate(auth.PlanStarter, false); g == nil || g.Field != "frequency" || g.Feature != auth.FeatureHourlyFrequency {
		t.Fatalf("HOURLY on STARTER gate = %+v", g)
	}
	if g := d.Gate(auth.PlanCustom, false); g != nil {
		t.Fatalf("HOURLY on CUSTOM gate = %+v", g)
	}
	_, ps = search.MicroblogProfile{Name: "x", ProfileURL: "https://facebook.com/jack"}.Definition(search.Rules{ForCreate: true})
	if !slices.Equal(fields(ps), []string{"profile_url"}) {
		t.Fatalf("profile problems = %v", ps)
	}
}

func TestPatchIsAllOrNothing(t *testing.T) {
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := search.Search{Name: "x", Status: search.StatusPaused, CreatedAt: created,
		Definition: search.Definition{TimeFrame: "past-week", MaxResults: 50, Frequency: search.Daily}}
	bad := ""
	_, ps := search.Patch{Name: &bad, Status: "active", Filters: &search.PatchFilters{MaxResults: 5}}.Apply(&s, created)
	if !slices.Equal(fields(ps), []string{"name", "filters.max_results"}) || s.Status != search.StatusPaused || s.Name != "x" {
		t.Fatalf("invalid patch: problems %v, search %+v", ps, s)
	}
	now := created.Add(48 * time.Hour)
	resumed, ps := search.Patch{Status: "ACTIVE", Filters: &search.PatchFilters{Frequency: "weekly"}}.Apply(&s, now)
	if len(ps) != 0 || !resumed || s.Status != search.StatusActive || s.Definition.Frequency != search.Weekly ||
		s.NextRunAt == nil || !s.NextRunAt.Equal(created.AddDate(0, 0, 7)) {
		t.Fatalf("valid patch: resumed %v, problems %v, search %+v", resumed, ps, s)
	}
}
