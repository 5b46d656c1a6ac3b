package microblog_test

import (
	"errors"
	"testing"

	"github.com/trawlhq/trawl/internal/source/microblog"
)

func TestParseProfileURL(t *testing.T) {
	good := map[string]string{
		"https://x.com/jack":                  "jack",
		"https://twitter.com/jack/":           "jack",
		"http://www.x.com/Jack_Dorsey":        "Jack_Dorsey",
		"https://mobile.twitter.com/jack?s=1": "jack",
		"x.com/elonmusk#top":                  "elonmusk",
		"  https://X.COM/a  ":                 "a",
		"https://x.com/abcdefghijklmno":       "abcdefghijklmno",
	}
	for in, want := range good {
		got, err := microblog.ParseProfileURL(in, nil)
		if err != nil || got != want {
			t.Errorf("ParseProfileURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := []string{
		"", "https://x.com/", "https://x.com/i/flow/login", "https://x.com/home", "https://x.com/search?q=go",
		"https://x.com/jack/status/20", "https://example.com/jack", "https://x.com.evil.com/jack",
		"ftp://x.com/jack", "https://x.com/abcdefghijklmnop", "https://x.com/ja-ck", "https://x.com:8080/jack",
		"https://user@x.com/jack", "https://x.com/hashtag", "jack", "https://x.com/%6Aack%2F",
	}
	for _, in := range bad {
		if got, err := microblog.ParseProfileURL(in, nil); !errors.Is(err, microblog.ErrInvalidProfileURL) {
			t.Errorf("ParseProfileURL(%q) = %q, %v; want ErrInvalidProfileURL", in, got, err)
		}
	}
	if got, err := microblog.ParseProfileURL("https://nitter.example/jack", []string{"nitter.example"}); err != nil || got != "jack" {
		t.Errorf("custom host: %q %v", got, err)
	}
	if _, err := microblog.ParseProfileURL("https://x.com/jack", []string{"nitter.example"}); err == nil {
		t.Error("custom host list still accepted x.com")
	}
}

func FuzzParseProfileURL(f *testing.F) {
	for _, s := range []string{"https://x.com/jack", "twitter.com/a_b/", "https://x.com/i/web", "https://www.x.com/jack?x=1", "%", "https://x.com/\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		name, err := microblog.ParseProfileURL(raw, nil)
		if err != nil {
			return
		}
		again, err := microblog.ParseProfileURL(microblog.ProfileURL(name), nil)
		if err != nil || again != name {
			t.Fatalf("%q → %q, but its profile URL re-parses to %q, %v", raw, name, again, err)
		}
	})
}
