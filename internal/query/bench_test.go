package query

import "testing"

// benchSpec is a realistic saved search: 10 keywords (the maximum) and common operators.
func benchSpec() Spec {
	return Spec{
		Keywords:        []string{"golang", "rust lang", "#kubernetes", "platform engineering", "devops", "sre"},
		KeywordsAnd:     []string{"hiring", "remote"},
		KeywordsNot:     []string{"crypto", "giveaway"},
		FromUsers:       []string{"alice", "bob", "carol"},
		URLContains:     "https://jobs.example.com",
		Language:        "en",
		ExcludeRetweets: true,
		ExcludeReplies:  true,
		HasLinks:        true,
		SearchType:      "Top",
	}
}

func BenchmarkCompile(b *testing.B) {
	s := benchSpec()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(s, MaxLenRecent); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

func BenchmarkParse(b *testing.B) {
	c, err := Compile(benchSpec(), MaxLenRecent)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(c.Query); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

func BenchmarkMatch(b *testing.B) {
	c, err := Compile(benchSpec(), MaxLenRecent)
	if err != nil {
		b.Fatal(err)
	}
	e, err := Parse(c.Query)
	if err != nil {
		b.Fatal(err)
	}
	posts := []Post{
		{Text: "We're hiring: remote Platform-Engineering roles, apply at https://jobs.example.com/42 #kubernetes",
			AuthorUsername: "bob", Lang: "en", URLs: []string{"https://jobs.example.com/42"}},
		{Text: "Crypto giveaway!!! golang devs hiring remote", AuthorUsername: "alice", Lang: "en"},
		{Text: "Nothing to see here, just a long post about the weather in Zürich and café culture.",
			AuthorUsername: "dave", Lang: "de"},
	}
	matched := 0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if e.Match(posts[i%len(posts)]) {
			matched++
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	if matched == 0 {
		b.Fatal("benchmark query matched nothing")
	}
}
