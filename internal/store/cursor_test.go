package store

import "testing"

func FuzzDecodeCursor(f *testing.F) {
	f.Add(encodeCursor(1732233600000, "2124325164681265725"))
	f.Add("")
	f.Add("bm90LWEtY3Vyc29y")
	f.Add("MTI6")
	f.Fuzz(func(t *testing.T, c string) {
		at, id, err := decodeCursor(c)
		if err != nil {
			return
		}
		if id == "" {
			t.Fatalf("decodeCursor(%q) accepted an empty id", c)
		}
		at2, id2, err := decodeCursor(encodeCursor(at, id))
		if err != nil || at2 != at || id2 != id {
			t.Fatalf("cursor (%d, %q) does not round-trip: (%d, %q, %v)", at, id, at2, id2, err)
		}
	})
}
