package topic

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/credits"
)

func TestPlanHydration(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	commented := at.Add(-time.Hour)
	ann, bob := Engager{URN: "urn:ann", FullName: "Ann A"}, Engager{URN: "urn:bob"}
	h := Hydration{At: at, Found: []Found{
		{Person: ann, Type: "like", ReactionType: "LIKE"},
		{Person: bob, Type: "comment", Text: "first", At: commented},
		{Person: ann, Type: "like", ReactionType: "PRAISE"}, // a second like of ann's: the first stands
		{Person: ann, Type: "comment", Text: "hi", At: commented.Add(time.Minute)},
		{Person: bob, Type: "comment", Text: "second", At: at},
	}}
	p := PlanHydration(h)
	want := []Found{
		{Person: ann, Type: "like", ReactionType: "LIKE", At: at}, // a reaction happened when first seen
		{Person: bob, Type: "comment", Text: "first", At: commented},
		{Person: ann, Type: "comment", Text: "hi", At: commented.Add(time.Minute)},
	}
	if !reflect.DeepEqual(p.Found, want) {
		t.Errorf("found = %+v, want %+v", p.Found, want)
	}
	if !reflect.DeepEqual(p.People, []Engager{ann, bob}) {
		t.Errorf("people = %+v, want ann then bob once each", p.People)
	}
	if h.Found[0].At != (time.Time{}) {
		t.Error("PlanHydration changed the hydration it was given")
	}
	if p := PlanHydration(Hydration{At: at}); len(p.Found) != 0 || len(p.People) != 0 {
		t.Errorf("nothing found plans %+v", p)
	}
}

func TestSplitName(t *testing.T) {
	for _, tc := range []struct{ full, first, last string }{
		{"Ann Smith", "Ann", "Smith"},
		{"  Ann  van der Berg ", "Ann", "van der Berg"},
		{"Cher", "Cher", ""},
		{"", "", ""},
	} {
		if first, last := SplitName(tc.full); first != tc.first || last != tc.last {
			t.Errorf("SplitName(%q) = %q, %q; want %q, %q", tc.full, first, last, tc.first, tc.last)
		}
	}
}

func ids(cs []Candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

func paidOf(ids ...string) func() ([]string, error) {
	return func() ([]string, error) { return ids, nil }
}

func TestPlanLinksKeepsByTitleOrHeadline(t *testing.T) {
	unlinked := []Candidate{
		{ID: "1", Person: "a", Title: "Head of Sales"},
		{ID: "2", Person: "b", Headline: "Founder at Acme"},
		{ID: "3", Person: "c", Title: "Engineer", Headline: "Building things"},
		{ID: "4", Person: "d"},
	}
	p, err := PlanLinks(Definition{JobTitles: []string{"sales", "FOUNDER"}}, unlinked, paidOf())
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(p.Keep); !reflect.DeepEqual(got, []string{"1", "2"}) {
		t.Errorf("kept %v, want 1 and 2", got)
	}
	if p.Charge != 2 {
		t.Errorf("charge = %d, want 2", p.Charge)
	}
	// No job titles keeps everyone.
	if p, _ := PlanLinks(Definition{}, unlinked, paidOf()); len(p.Keep) != 4 || p.Charge != 4 {
		t.Errorf("no job titles: kept %v for %d", ids(p.Keep), p.Charge)
	}
}

func TestPlanLinksChargesOncePerAccount(t *testing.T) {
	unlinked := []Candidate{{ID: "1", Person: "a"}, {ID: "2", Person: "b"}, {ID: "3", Person: "c"}}
	// 2 is linked by another topic of the account (paid), 9 is of no concern here.
	p, err := PlanLinks(Definition{}, unlinked, paidOf("2", "9"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Charge != 2 || len(p.Keep) != 3 {
		t.Errorf("charge %d for %v, want 2 for all three", p.Charge, ids(p.Keep))
	}
	if p, _ := PlanLinks(Definition{}, unlinked, paidOf("1", "2", "3")); p.Charge != 0 || len(p.Keep) != 3 {
		t.Errorf("all paid: charge %d for %v, want 0 for all three", p.Charge, ids(p.Keep))
	}
}

func TestPlanLinksReadsPaidOnlyWhenKeeping(t *testing.T) {
	asked := false
	paid := func() ([]string, error) { asked = true; return nil, nil }
	p, err := PlanLinks(Definition{JobTitles: []string{"cto"}}, []Candidate{{ID: "1", Title: "Intern"}}, paid)
	if err != nil || asked || len(p.Keep) != 0 || p.Charge != 0 || p.Engagers != nil {
		t.Errorf("nothing kept: plan %+v, err %v, paid asked %v", p, err, asked)
	}
	boom := errors.New("boom")
	if _, err := PlanLinks(Definition{}, []Candidate{{ID: "1"}}, func() ([]string, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("paid's error: %v", err)
	}
}

func TestLatestPerPerson(t *testing.T) {
	cs := []Candidate{
		{ID: "1", Person: "a", Engaged: 10},
		{ID: "2", Person: "b", Engaged: 20},
		{ID: "3", Person: "a", Engaged: 30},
		{ID: "4", Person: "b", Engaged: 5},  // earlier: b's 2 stays
		{ID: "5", Person: "a", Engaged: 30}, // same time, listed later: replaces 3
	}
	if got := ids(LatestPerPerson(cs)); !reflect.DeepEqual(got, []string{"5", "2"}) {
		t.Errorf("latest = %v, want [5 2]", got)
	}
	p, _ := PlanLinks(Definition{}, cs, paidOf())
	if got := ids(p.Engagers); !reflect.DeepEqual(got, []string{"5", "2"}) {
		t.Errorf("plan's engagers = %v, want [5 2]", got)
	}
}

func TestPlanDiscovery(t *testing.T) {
	ann := Engager{URN: "urn:ann"}
	run := DiscoveryRun{Posts: []Post{
		{URN: "p3", Author: ann},
		{URN: "p1"}, // a company page's post
		{URN: "p2", Author: ann},
		{URN: "p0", Author: Engager{URN: "urn:bob"}},
	}}
	p := PlanDiscovery(run)
	var urns []string
	for _, post := range p.Posts {
		urns = append(urns, post.URN)
	}
	if !reflect.DeepEqual(urns, []string{"p0", "p1", "p2", "p3"}) {
		t.Errorf("posts in %v, want key order", urns)
	}
	if !reflect.DeepEqual(p.Authors, []Engager{{URN: "urn:bob"}, ann}) {
		t.Errorf("authors = %+v, want bob then ann, once each", p.Authors)
	}
	if run.Posts[0].URN != "p3" {
		t.Error("PlanDiscovery reordered the run's posts")
	}
}

func TestPlanDiscoveryLinks(t *testing.T) {
	// p1 and p2 newly linked, p2 and p3 never hydrated (p3 was linked before).
	l := PlanDiscoveryLinks([]string{"p1", "p2"}, []string{"p2", "p3"})
	if !reflect.DeepEqual(l.BringAlong, []string{"p1"}) {
		t.Errorf("bring along %v, want [p1]", l.BringAlong)
	}
	if !reflect.DeepEqual(l.Hydrate, []string{"p2", "p3"}) {
		t.Errorf("hydrate %v, want [p2 p3]", l.Hydrate)
	}
}

func TestBlocks(t *testing.T) {
	if !Blocks(fmt.Errorf("spend: %w", credits.ErrInsufficient)) {
		t.Error("an account that cannot pay does not block the topic")
	}
	if Blocks(errors.New("disk full")) || Blocks(nil) {
		t.Error("another error blocks the topic")
	}
	if OutOfCredits == "" {
		t.Error("a blocked topic shows no error")
	}
}
