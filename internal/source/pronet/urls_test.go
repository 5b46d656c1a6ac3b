package pronet_test

import (
	"errors"
	"testing"

	"github.com/trawlhq/trawl/internal/source/pronet"
)

func TestParseProfileURL(t *testing.T) {
	good := map[string]string{
		"https://www.linkedin.com/in/jane-doe":                     "jane-doe",
		"https://www.linkedin.com/in/jane-doe/":                    "jane-doe",
		"http://linkedin.com/in/jane_doe-123?originalSubdomain=uk": "jane_doe-123",
		"https://de.linkedin.com/in/j%C3%BCrgen-m%C3%BCller/":      "jürgen-müller",
		"www.linkedin.com/in/abc#about":                            "abc",
		"https://WWW.LINKEDIN.COM/in/Jane":                         "Jane",
	}
	for in, want := range good {
		got, err := pronet.ParseProfileURL(in, nil)
		if err != nil || got != want {
			t.Errorf("ParseProfileURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := []string{
		"", "https://www.linkedin.com/in/", "https://www.linkedin.com/company/acme", "https://www.linkedin.com/in/a/b",
		"https://evil.com/in/jane", "https://linkedin.com.evil.com/in/jane", "https://de.www.linkedin.com/in/jane",
		"https://abc.linkedin.com/in/jane", "ftp://www.linkedin.com/in/jane", "https://www.linkedin.com/in/jane%2Fdoe",
		"https://www.linkedin.com/in/jane doe", "https://www.linkedin.com/pub/jane",
	}
	for _, in := range bad {
		if got, err := pronet.ParseProfileURL(in, nil); !errors.Is(err, pronet.ErrInvalidProfileURL) {
			t.Errorf("ParseProfileURL(%q) = %q, %v; want error", in, got, err)
		}
	}
	if got, err := pronet.ParseProfileURL("https://pro.example/in/jane", []string{"pro.example"}); err != nil || got != "jane" {
		t.Errorf("custom host: %q %v", got, err)
	}
}

func TestParseCompanyURL(t *testing.T) {
	good := map[string]string{
		"https://www.linkedin.com/company/acme":            "acme",
		"https://www.linkedin.com/company/acme-corp/":      "acme-corp",
		"https://www.linkedin.com/company/acme/posts/?x=1": "acme",
		"https://fr.linkedin.com/company/1441/about":       "1441",
	}
	for in, want := range good {
		got, err := pronet.ParseCompanyURL(in, nil)
		if err != nil || got != want {
			t.Errorf("ParseCompanyURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"https://www.linkedin.com/in/jane", "https://www.linkedin.com/company/", "https://evil.com/company/acme", "https://www.linkedin.com/school/mit"} {
		if _, err := pronet.ParseCompanyURL(in, nil); !errors.Is(err, pronet.ErrInvalidCompanyURL) {
			t.Errorf("ParseCompanyURL(%q) = %v; want error", in, err)
		}
	}
}

func TestParsePostURN(t *testing.T) {
	good := map[string]string{
		"7301234567890123456":                   "7301234567890123456",
		" urn:li:activity:7301234567890123456 ": "7301234567890123456",
		"https://www.linkedin.com/posts/jane-doe_hiring-activity-7301234567890123456-AbCd":    "7301234567890123456",
		"https://www.linkedin.com/posts/my-activity-log_x-activity-7301234567890123456-AbCd/": "7301234567890123456",
		"https://www.linkedin.com/feed/update/urn:li:activity:7301234567890123456/":           "7301234567890123456",
		"https://www.linkedin.com/feed/update/urn%3Ali%3Aactivity%3A7301234567890123456":      "7301234567890123456",
	}
	for in, want := range good {
		got, err := pronet.ParsePostURN(in)
		if err != nil || got != want {
			t.Errorf("ParsePostURN(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := []string{"", "abc", "-1", "urn:li:activity:", "urn:li:activity:12a", "urn:li:share:123",
		"https://www.linkedin.com/posts/jane-doe_hiring", "https://evil.com/feed/update/urn:li:activity:1",
		"https://www.linkedin.com/feed/update/urn:li:ugcPost:1", "12345678901234567890123456"}
	for _, in := range bad {
		if got, err := pronet.ParsePostURN(in); !errors.Is(err, pronet.ErrInvalidPostURN) {
			t.Errorf("ParsePostURN(%q) = %q, %v; want error", in, got, err)
		}
	}
}

func FuzzParseProfileURL(f *testing.F) {
	for _, s := range []string{"https://www.linkedin.com/in/jane-doe/", "de.linkedin.com/in/j%C3%BC", "https://www.linkedin.com/in/%zz", "linkedin.com/in/a?b#c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		slug, err := pronet.ParseProfileURL(raw, nil)
		if err != nil {
			return
		}
		again, err := pronet.ParseProfileURL(pronet.ProfileURL(slug), nil)
		if err != nil || again != slug {
			t.Fatalf("%q → %q, re-parse of %q → %q, %v", raw, slug, pronet.ProfileURL(slug), again, err)
		}
	})
}

func FuzzParseCompanyURL(f *testing.F) {
	for _, s := range []string{"https://www.linkedin.com/company/acme/", "fr.linkedin.com/company/1441/about", "https://www.linkedin.com/company/%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		slug, err := pronet.ParseCompanyURL(raw, nil)
		if err != nil {
			return
		}
		again, err := pronet.ParseCompanyURL(pronet.CompanyURL(slug), nil)
		if err != nil || again != slug {
			t.Fatalf("%q → %q, re-parse → %q, %v", raw, slug, again, err)
		}
	})
}

func FuzzParsePostURN(f *testing.F) {
	for _, s := range []string{"7301234567890123456", "urn:li:activity:1", "https://www.linkedin.com/posts/a-activity-1-x", "https://www.linkedin.com/feed/update/urn:li:activity:2/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		id, err := pronet.ParsePostURN(raw)
		if err != nil {
			return
		}
		for _, form := range []string{id, "urn:li:activity:" + id, "https://www.linkedin.com/feed/update/urn:li:activity:" + id + "/"} {
			again, err := pronet.ParsePostURN(form)
			if err != nil || again != id {
				t.Fatalf("%q → %q, but %q → %q, %v", raw, id, form, again, err)
			}
		}
	})
}

func TestIsPersonURN(t *testing.T) {
	for urn, want := range map[string]bool{
		"urn:li:member:123":                      true,
		"urn:li:fsd_profile:ACoAACBUX2SyXOiIBBB": true,
		"urn:li:member:":                         false,
		"urn:li:fsd_profile:":                    false,
		"urn:li:company:42":                      false,
		"":                                       false,
		"ACoAACBUX2SyXOiIBBB":                    false,
	} {
		if got := pronet.IsPersonURN(urn); got != want {
			t.Errorf("IsPersonURN(%q) = %v, want %v", urn, got, want)
		}
	}
}
