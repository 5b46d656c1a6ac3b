package mapping

import "testing"

func TestSeniority(t *testing.T) {
	for title, want := range map[string]string{
		"Co-Founder & CEO":            "owner",
		"Chief Revenue Officer":       "cxo",
		"CTO":                         "cxo",
		"VP of Sales":                 "vp",
		"Vice President, Marketing":   "vp",
		"Head of Growth":              "director",
		"Director of Engineering":     "director",
		"Senior Engineering Manager":  "manager",
		"Sr. Software Engineer":       "senior",
		"Staff Engineer":              "senior",
		"Junior Analyst":              "entry",
		"Marketing Intern":            "training",
		"Volunteer coordinator":       "unpaid",
		"Software Engineer":           "",
		"":                            "",
		"Leadership coach":            "",
		"Partner at Acme Ventures":    "partner",
		"Headhunter":                  "",
		"Assistant to the CEO":        "cxo",
		"Sales Development Rep (SDR)": "",
	} {
		if got := Seniority(title); got != want {
			t.Errorf("Seniority(%q) = %q, want %q", title, got, want)
		}
	}
	if l, ok := SeniorityLevel(" VP "); !ok || l != "vp" {
		t.Errorf("SeniorityLevel(VP) = %q %v", l, ok)
	}
	if _, ok := SeniorityLevel("boss"); ok {
		t.Error("boss is a level")
	}
}
