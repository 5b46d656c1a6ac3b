package mapping

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// queriesOf are the index queries a store asks about k (termsQuery's
// keyword and level), each with the posts' count the index must reach:
// a counted keyword's levels, a phrase's occurrence, a pair's levels.
func queriesOf(k Keyword) []struct {
	k     Keyword
	level int
} {
	type q = struct {
		k     Keyword
		level int
	}
	var out []q
	switch k.Kind {
	case KeywordCounted:
		for level := 1; level <= MaxStrength; level++ {
			out = append(out, q{k, level})
		}
	case KeywordPhrase, KeywordLoose:
		out = append(out, q{k, 1})
		if k.Pair != "" {
			pair := Keyword{Kind: KeywordCounted, Lexemes: []string{k.Pair}}
			for level := 1; level <= MaxStrength; level++ {
				out = append(out, q{pair, level})
			}
		}
	}
	return out
}

// postingsSay is which of the posts (terms by id) the posting lists match
// for k at level.
func postingsSay(t *testing.T, posts map[int64]PostTerms, k Keyword, level int) []int64 {
	t.Helper()
	b := NewPostingsBuilder()
	ids := slices.Sorted(func(yield func(int64) bool) {
		for id := range posts {
			if !yield(id) {
				return
			}
		}
	})
	for _, id := range ids {
		b.Add(id, posts[id])
	}
	lexemes, lists := b.Lists()
	if !slices.IsSorted(lexemes) {
		t.Fatalf("lexemes not sorted: %q", lexemes)
	}
	byLex := map[string][]byte{}
	for i, lex := range lexemes {
		byLex[lex] = lists[i]
	}
	read := map[string]bool{}
	for _, lex := range PostingLexemes(k) {
		read[lex] = true
	}
	got, err := MatchPostings(func(lex string) []byte {
		if !read[lex] {
			t.Fatalf("keyword %+v: read list %q, not among PostingLexemes", k, lex)
		}
		return byLex[lex]
	}, k, level, nil)
	if err != nil {
		t.Fatalf("keyword %+v: %v", k, err)
	}
	return got
}

// checkPostings compares what the posting lists of one post say about k
// with what the index says (indexSays).
func checkPostings(t *testing.T, text string, terms PostTerms, k Keyword) {
	t.Helper()
	for _, q := range queriesOf(k) {
		says := indexSays(terms, q.k)
		got := postingsSay(t, map[int64]PostTerms{7: terms}, q.k, q.level)
		if want := says >= q.level; (len(got) == 1) != want || len(got) > 1 || len(got) == 1 && got[0] != 7 {
			t.Fatalf("text %q, keyword %+v at level %d: lists match %v, the index says %d", text, q.k, q.level, got, says)
		}
	}
}

// TestPostingsManyPosts: lists over many posts, read side by side.
func TestPostingsManyPosts(t *testing.T) {
	words := []string{"sales", "ops", "revops", "#revops", "#sales", "crm", "led", "product", "growth", "-", ".", "  "}
	r := rand.New(rand.NewPCG(3, 4))
	posts := map[int64]string{}
	terms := map[int64]PostTerms{}
	id := int64(0)
	for range 400 {
		id += 1 + int64(r.IntN(300)) // sparse and dense runs
		n := r.IntN(12)
		text := ""
		for i := range n {
			if i > 0 {
				text += " "
			}
			text += words[r.IntN(len(words))]
		}
		posts[id], terms[id] = text, IndexText(text)
	}
	var (
		all   []PostingQuery
		wants [][]int64
	)
	for _, keyword := range []string{"sales", "#sales", "revops", "#revops", "sales ops", "sales-ops", "sales. ops", "ops sales", "product led growth", "product-led", "sales sales", "led growth", "nothing"} {
		k := PlanKeyword(keyword)
		for _, q := range queriesOf(k) {
			var want []int64
			for id, pt := range terms {
				if indexSays(pt, q.k) >= q.level {
					want = append(want, id)
				}
			}
			slices.Sort(want)
			if got := postingsSay(t, terms, q.k, q.level); !slices.Equal(got, want) {
				t.Fatalf("keyword %q (%+v) at level %d: lists match %v, want %v", keyword, q.k, q.level, got, want)
			}
			all, wants = append(all, PostingQuery{K: q.k, Level: q.level}), append(wants, want)
		}
	}
	// All of them at once, as a store asks a query's keywords: what
	// several count (levels, a phrase and its pair) is read once.
	b := NewPostingsBuilder()
	for _, id := range slices.Sorted(maps.Keys(terms)) {
		b.Add(id, terms[id])
	}
	lexemes, lists := b.Lists()
	got := make([][]int64, len(all))
	if err := NewPostingMatcher(all).Match(func(lex string) []byte {
		if i, ok := slices.BinarySearch(lexemes, lex); ok {
			return lists[i]
		}
		return nil
	}, got); err != nil {
		t.Fatal(err)
	}
	for i, q := range all {
		if !slices.Equal(got[i], wants[i]) {
			t.Fatalf("all at once, %+v at level %d: lists match %v, want %v", q.K, q.Level, got[i], wants[i])
		}
	}
}

// FuzzMatchPostings: a list read back from storage may be anything; it is
// read or refused, never a panic or a loop.
func FuzzMatchPostings(f *testing.F) {
	b := NewPostingsBuilder()
	b.Add(3, IndexText("sales ops #sales"))
	b.Add(9, IndexText("sales ops sales ops"))
	lexemes, lists := b.Lists()
	for i := range lexemes {
		f.Add(lists[i], lists[(i+1)%len(lists)])
	}
	// An id past int64.
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 1, 1, 0x02, 1, 1}, lists[0])
	f.Fuzz(func(t *testing.T, a, b []byte) {
		lists := func(lex string) []byte {
			if lex == "wsales" || lex == "hsales" {
				return a
			}
			return b
		}
		var all []PostingQuery
		for _, keyword := range []string{"sales", "#sales", "sales ops", "sales-ops"} {
			k := PlanKeyword(keyword)
			for _, q := range queriesOf(k) {
				ids, err := MatchPostings(lists, q.k, q.level, nil)
				if err == nil && !slices.IsSorted(ids) {
					t.Fatalf("ids not ascending: %v", ids)
				}
				all = append(all, PostingQuery{K: q.k, Level: q.level})
			}
		}
		ids := make([][]int64, len(all))
		if err := NewPostingMatcher(all).Match(lists, ids); err == nil {
			for i := range all {
				if !slices.IsSorted(ids[i]) {
					t.Fatalf("ids not ascending: %v", ids[i])
				}
			}
		}
	})
}

// BenchmarkPostingsBlock builds the lists of a block of posts of about 90
// words each (IndexText included), and reads a common word's list back.
func BenchmarkPostingsBlock(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	vocab := make([]string, 5000)
	for i := range vocab {
		vocab[i] = "w" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))
	}
	texts := make([]string, 4096)
	for i := range texts {
		words := make([]byte, 0, 800)
		for j := range 90 {
			if j > 0 {
				words = append(words, ' ')
			}
			words = append(words, vocab[int(float64(len(vocab))*r.Float64()*r.Float64())]...)
		}
		texts[i] = string(words)
	}
	b.ResetTimer()
	for b.Loop() {
		pb := NewPostingsBuilder()
		for i, text := range texts {
			pb.Add(int64(i+1), IndexText(text))
		}
		pb.Lists()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(texts)), "µs/post")
}
