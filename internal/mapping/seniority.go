package mapping

import (
	"strings"
	"unicode"
)

// seniorityWords are the levels of seniority a job title states, highest
// first, each with the words (or phrases) that state it. The levels are
// People Data Labs' job_title_levels, which enriched profiles carry.
func seniorityWords() []struct {
	level string
	words []string
} {
	return []struct {
		level string
		words []string
	}{
		{"owner", []string{"owner", "founder", "cofounder"}},
		{"partner", []string{"partner", "managing partner"}},
		{"cxo", []string{"chief", "ceo", "cto", "cfo", "coo", "cmo", "cio", "cro", "cpo", "cso", "ciso"}},
		{"vp", []string{"vp", "svp", "evp", "avp", "vice president"}},
		{"director", []string{"director", "head"}},
		{"manager", []string{"manager", "mgr"}},
		{"senior", []string{"senior", "sr", "principal", "staff", "lead"}},
		{"entry", []string{"junior", "jr", "associate", "assistant", "graduate", "entry"}},
		{"training", []string{"intern", "internship", "trainee", "apprentice"}},
		{"unpaid", []string{"volunteer", "unpaid"}},
	}
}

// SeniorityLevels lists the seniority levels, highest first.
func SeniorityLevels() []string {
	ws := seniorityWords()
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.level
	}
	return out
}

// Seniority is the highest level a job title states ("Co-Founder & CEO" is
// owner, "Senior Engineering Manager" manager), "" when it states none.
// Words are matched whole, in any case.
func Seniority(title string) string {
	words := strings.FieldsFunc(strings.ToLower(strings.ReplaceAll(title, "-", "")), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	s := " " + strings.Join(words, " ") + " "
	for _, l := range seniorityWords() {
		for _, w := range l.words {
			if strings.Contains(s, " "+w+" ") {
				return l.level
			}
		}
	}
	return ""
}

// SeniorityLevel is the level named by v in any case; ok false when v
// names none.
func SeniorityLevel(v string) (string, bool) {
	for _, l := range SeniorityLevels() {
		if strings.EqualFold(strings.TrimSpace(v), l) {
			return l, true
		}
	}
	return "", false
}
