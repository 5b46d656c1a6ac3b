package topic

import (
	"testing"
	"time"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestNextDaily(t *testing.T) {
	for _, tc := range []struct{ now, want string }{
		{"2026-11-23T05:59:59Z", "2026-11-23T06:00:00Z"},
		{"2026-11-23T06:00:00Z", "2026-11-24T06:00:00Z"}, // strictly after: a run at 06:00 schedules tomorrow
		{"2026-11-23T23:30:00Z", "2026-11-24T06:00:00Z"},
		{"2026-12-31T12:00:00Z", "2027-01-01T06:00:00Z"},
		{"2026-11-23T07:00:00+05:00", "2026-11-23T06:00:00Z"}, // 02:00 UTC
	} {
		if got := NextDaily(at(tc.now)); !got.Equal(at(tc.want)) {
			t.Errorf("NextDaily(%s) = %s, want %s", tc.now, got, tc.want)
		}
	}
}

func TestFollowUpSchedule(t *testing.T) {
	linked := at("2026-11-01T10:00:00Z")
	for _, tc := range []struct {
		now      string
		next     Interval
		due      string
		stage    Interval // what a hydration running at now is labelled, for a post scheduled for day1
		finished bool
	}{
		{"2026-11-01T10:00:05Z", Day1, "2026-11-02T10:00:00Z", Day1, false},
		{"2026-11-02T10:00:00Z", Day3, "2026-11-04T10:00:00Z", Day1, false},
		{"2026-11-04T11:00:00Z", Day5, "2026-11-06T10:00:00Z", Day3, false},
		// Paused over Day 3 and Day 5: one hydration, labelled day5, and nothing after.
		{"2026-11-09T00:00:00Z", "", "", Day5, true},
	} {
		next, due, ok := NextFollowUp(linked, at(tc.now))
		if ok == tc.finished || next != tc.next || (ok && !due.Equal(at(tc.due))) {
			t.Errorf("NextFollowUp at %s = %s %s %v", tc.now, next, due, ok)
		}
		if got := DueStage(Day1, linked, at(tc.now)); got != tc.stage {
			t.Errorf("DueStage at %s = %s, want %s", tc.now, got, tc.stage)
		}
	}
	if got := DueStage(Initial, linked, at("2026-11-09T00:00:00Z")); got != Initial {
		t.Errorf("a first hydration keeps its link's interval, got %s", got)
	}
}

func TestCompileKeywords(t *testing.T) {
	for _, tc := range []struct {
		d    Definition
		want string
	}{
		{Definition{Keywords: []string{"crm"}}, `"crm"`},
		{Definition{Keywords: []string{"revops", "sales ops"}, KeywordsAnd: []string{"crm"}, KeywordsNot: []string{"hiring", "jobs"}},
			`("revops" OR "sales ops") AND "crm" NOT "hiring" NOT "jobs"`},
		{Definition{Keywords: []string{` say "hi" `}}, `"say hi"`},
	} {
		if got := CompileKeywords(tc.d); got != tc.want {
			t.Errorf("CompileKeywords(%+v) = %s, want %s", tc.d, got, tc.want)
		}
	}
}

func TestKeepsEngager(t *testing.T) {
	d := Definition{JobTitles: []string{"VP Sales", "revops"}}
	for _, tc := range []struct {
		title, headline string
		want            bool
	}{
		{"vp sales", "", true},
		{"", "Head of RevOps at Acme", true},
		{"Engineer", "Building things", false},
	} {
		if got := d.KeepsEngager(tc.title, tc.headline); got != tc.want {
			t.Errorf("KeepsEngager(%q, %q) = %v", tc.title, tc.headline, got)
		}
	}
	if !(Definition{}).KeepsEngager("", "") {
		t.Error("no job titles keeps everyone")
	}
}

func TestProfileParsing(t *testing.T) {
	for in, want := range map[string]string{"51-200": "51-200", "51 to 200 employees": "51-200", "10,001+": "10001+",
		"2-10": "1-10", "1001-5000": "1001-5000", "": "", "self-employed": "", "5001-10,000": "5001-10000"} {
		if got := SizeBucket(in); got != want {
			t.Errorf("SizeBucket(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"https://www.Acme.com/about": "acme.com", "acme.io": "acme.io",
		"http://eu.acme.com": "eu.acme.com", "": "", "://": ""} {
		if got := Domain(in); got != want {
			t.Errorf("Domain(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzProviderFields: what a provider sends as a staff-count range or a
// website never panics and always maps to a known bucket or nothing.
func FuzzProviderFields(f *testing.F) {
	for _, s := range []string{"51-200", "10,001+", "https://www.acme.com", "", "९९", "1e9999", "http://[::1"} {
		f.Add(s)
	}
	buckets := map[string]bool{"": true}
	for _, b := range CompanySizes() {
		buckets[b] = true
	}
	f.Fuzz(func(t *testing.T, s string) {
		if b := SizeBucket(s); !buckets[b] {
			t.Fatalf("SizeBucket(%q) = %q", s, b)
		}
		_ = Domain(s)
	})
}
