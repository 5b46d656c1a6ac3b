package search_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/search"
)

// TestPatchQueryIsCheckedAsACreate: new keywords and mentions go through
// the rules of a create, whose problems are named at their place in the
// patch; a valid patch replaces only what it gives.
func TestPatchQueryIsCheckedAsACreate(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d, ps := search.MicroblogPosts{Name: "x", Keywords: []string{"ai"}, KeywordsNot: []string{"spam"}, MicroblogLanguage: "en"}.Definition(search.Rules{ForCreate: true})
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	mb := search.Search{Name: "x", Kind: search.KindPosts, Status: search.StatusActive, CreatedAt: now, Definition: d}

	long := strings.Repeat("word ", 30)
	for _, c := range []struct {
		name  string
		patch search.Patch
		want  []string
	}{
		{"too many keywords", search.Patch{Query: &search.PatchQuery{Keywords: strings.Fields("a b c d e f g h i"), KeywordsAnd: []string{"j", "k"}}}, []string{"query.keywords"}},
		{"a query over the limit", search.Patch{Query: &search.PatchQuery{Keywords: []string{long, long, long, long, long}}}, []string{"query.keywords"}},
		{"mentions on a microblog search", search.Patch{Filters: &search.PatchFilters{MentionsOrganization: []string{"1441"}}}, []string{"filters.mentions_organization"}},
		{"nothing left to search", search.Patch{Query: &search.PatchQuery{Keywords: []string{}}}, []string{"query.keywords"}},
	} {
		s := mb
		_, ps := c.patch.ApplyRules(&s, now, search.Rules{QueryMaxLength: 128})
		if !slices.Equal(fields(ps), c.want) {
			t.Errorf("%s: problems %v, want fields %v", c.name, ps, c.want)
		}
		if !slices.Equal(s.Definition.Keywords, []string{"ai"}) {
			t.Errorf("%s: an invalid patch changed the keywords to %v", c.name, s.Definition.Keywords)
		}
	}

	s := mb
	if _, ps := (search.Patch{Query: &search.PatchQuery{Keywords: []string{" ml ", "llm"}}}).ApplyRules(&s, now, search.Rules{}); len(ps) > 0 {
		t.Fatal(ps)
	}
	if got := s.Definition; !slices.Equal(got.Keywords, []string{"ml", "llm"}) || !slices.Equal(got.KeywordsNot, []string{"spam"}) || got.Language != "en" {
		t.Errorf("patched definition = %+v", got)
	}

	pd, ps := search.PronetPosts{Name: "p", Keywords: []string{"revops"}}.Definition(search.Rules{ForCreate: true})
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	pr := search.Search{Name: "p", Kind: search.KindPronetPosts, Status: search.StatusActive, CreatedAt: now, Definition: pd}
	_, ps = search.Patch{Filters: &search.PatchFilters{MentionsMember: []string{"jane"}}}.ApplyRules(&pr, now, search.Rules{})
	if !slices.Equal(fields(ps), []string{"filters.mentions_member[0]"}) {
		t.Errorf("bad mention: problems %v", ps)
	}
	_, ps = search.Patch{Query: &search.PatchQuery{Keywords: []string{}}, Filters: &search.PatchFilters{MentionsOrganization: []string{"1441"}}}.ApplyRules(&pr, now, search.Rules{})
	if len(ps) > 0 || len(pr.Definition.Keywords) != 0 || !slices.Equal(pr.Definition.MentionsOrganization, []string{"1441"}) {
		t.Errorf("mentions instead of keywords: problems %v, definition %+v", ps, pr.Definition)
	}
	profile := search.Search{Kind: search.KindPronetProfile, Definition: search.Definition{ProfileURL: "https://www.linkedin.com/in/jane-doe"}}
	_, ps = search.Patch{Query: &search.PatchQuery{Keywords: []string{"x"}}}.ApplyRules(&profile, now, search.Rules{})
	if !slices.Equal(fields(ps), []string{"query.keywords"}) {
		t.Errorf("keywords on a profile monitor: problems %v", ps)
	}
}
