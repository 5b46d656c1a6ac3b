package enrich_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/sandbox"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/enrich"
	"github.com/trawlhq/trawl/internal/source/sourcetest"
)

// sandboxClient is a client of the sandbox's PDL server, as the service builds one.
func sandboxClient(t *testing.T, key string) (*enrich.Client, *sandbox.Sandbox) {
	t.Helper()
	sb := sandbox.New(sandbox.Config{Seed: 3, Now: func() time.Time { return now }})
	srv := httptest.NewServer(sb.Handler())
	t.Cleanup(srv.Close)
	sl := &sourcetest.Sleeper{}
	return enrich.New(enrich.Config{BaseURL: srv.URL + "/enrich", APIKey: key, Sleep: sl.Sleep, Now: sourcetest.FixedClock(now)}), sb
}

func TestCompanyAgainstSandbox(t *testing.T) {
	c, sb := sandboxClient(t, "pdl-key")
	want := sb.World().Companies()[7]
	ctx := context.Background()
	byPage, err := c.Company(ctx, enrich.CompanyQuery{Profile: want.URL()})
	if err != nil {
		t.Fatal(err)
	}
	byWeb, err := c.Company(ctx, enrich.CompanyQuery{Website: want.Domain})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []enrich.CompanyMatch{byPage, byWeb} {
		co := m.Company
		if co.DisplayName != want.Name || co.LinkedinSlug != want.Slug || co.Website != want.Domain || co.Size != want.SizeBand ||
			co.EmployeeCount <= 0 || co.Location.Locality != want.City || m.Likelihood < 1 || co.GrowthRate12Month == nil {
			t.Errorf("company = %+v (likelihood %d), want %s (%s, %s, %s)", co, m.Likelihood, want.Name, want.Slug, want.Domain, want.City)
		}
	}
	d := enrich.BuildCompanyData(byPage.Company, want.Slug, "")
	if d.PronetURL == nil || *d.PronetURL != "https://www.linkedin.com/company/"+want.Slug || d.Domain != want.Domain ||
		d.Name == nil || *d.Name != want.Name || d.EmployeesCount == nil || d.Technologies == nil || d.MonthlyVisitors != nil {
		t.Errorf("company data = %+v", d)
	}
}

func TestCompanyErrorsAgainstSandbox(t *testing.T) {
	ctx := context.Background()
	c, _ := sandboxClient(t, "pdl-key")
	if _, err := c.Company(ctx, enrich.CompanyQuery{Website: "missing-corp.com"}); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("unknown website: %v, want ErrNotFound", err)
	}
	if _, err := c.Company(ctx, enrich.CompanyQuery{Website: "no-such-company.example"}); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("domain nobody owns: %v, want ErrNotFound", err)
	}
	var rl *source.RateLimitError
	if _, err := c.Company(ctx, enrich.CompanyQuery{Profile: "https://www.linkedin.com/company/ratelimited-acme"}); !errors.As(err, &rl) {
		t.Errorf("rate limited: %v, want RateLimitError", err)
	} else if !rl.ResetAt.Equal(now.Add(2 * time.Second)) {
		t.Errorf("reset at %v, want Retry-After from now", rl.ResetAt)
	}
	var up *source.UpstreamError
	if _, err := c.Company(ctx, enrich.CompanyQuery{Profile: "https://www.linkedin.com/company/error-acme"}); !errors.As(err, &up) || up.Status != 500 {
		t.Errorf("failing upstream: %v, want UpstreamError 500", err)
	}
	noKey, _ := sandboxClient(t, "")
	if _, err := noKey.Company(ctx, enrich.CompanyQuery{Name: "acme"}); !errors.As(err, &up) || up.Status != http.StatusUnauthorized ||
		!strings.Contains(err.Error(), "No API key") {
		t.Errorf("no key: %v, want UpstreamError 401 with PDL's message", err)
	}
	if _, err := c.Company(ctx, enrich.CompanyQuery{}); err == nil {
		t.Error("empty query sent")
	}
}

// TestCompanyLenient reads a record as PDL writes it for a plan that may not see some
// fields: null, true, and numbers as strings.
func TestCompanyLenient(t *testing.T) {
	srv := sourcetest.NewServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		sourcetest.JSON(w, 200, `{"status": 200, "likelihood": 6, "id": "abc", "name": "acme", "display_name": null,
			"size": "11-50", "employee_count": "42", "total_funding_raised": true, "website": "www.acme.io",
			"location": null, "tags": null, "linkedin_url": "linkedin.com/company/acme-inc", "employee_growth_rate": null}`)
	})
	c, _ := newClient(t, srv)
	m, err := c.Company(context.Background(), enrich.CompanyQuery{Website: "acme.io"})
	if err != nil {
		t.Fatal(err)
	}
	if req := srv.Requests()[0]; req.Path != "/v5/company/enrich" || req.Query.Get("website") != "acme.io" || req.Query.Get("titlecase") != "true" {
		t.Errorf("request %s %v", req.Path, req.Query)
	}
	if m.Company.EmployeeCount != 42 || m.Company.TotalFundingRaised != 0 || m.Company.GrowthRate12Month != nil {
		t.Errorf("company = %+v", m.Company)
	}
	d := enrich.BuildCompanyData(m.Company, "", "acme.io")
	if *d.Name != "acme" || d.Domain != "acme.io" || *d.PronetURL != "https://www.linkedin.com/company/acme-inc" || d.TotalFunding != nil || d.City != nil {
		t.Errorf("company data = %+v", d)
	}
}

func TestParseWebsite(t *testing.T) {
	for in, want := range map[string]string{
		"acme.io": "acme.io", "https://www.Acme.io/about?x=1": "acme.io", "http://shop.acme.co.uk": "shop.acme.co.uk",
		" acme.io. ": "acme.io", "xn--bcher-kva.de": "xn--bcher-kva.de",
	} {
		if got, err := enrich.ParseWebsite(in); err != nil || got != want {
			t.Errorf("ParseWebsite(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "acme", "ftp://acme.io", "acme.io:8080", "user@acme.io", "10.0.0.1", "-acme.io", "acme..io", "acme.i0", "https://"} {
		if got, err := enrich.ParseWebsite(in); !errors.Is(err, enrich.ErrInvalidWebsite) {
			t.Errorf("ParseWebsite(%q) = %q, %v; want ErrInvalidWebsite", in, got, err)
		}
	}
}

func FuzzParseWebsite(f *testing.F) {
	for _, s := range []string{"acme.io", "https://www.acme.io/x", "http://a-b.c.de", "x", "://", "www.", "a.b:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		d, err := enrich.ParseWebsite(raw)
		if err != nil {
			return
		}
		// A parsed domain is in its canonical form: parsing it again gives it back.
		if again, err := enrich.ParseWebsite(d); err != nil || again != d {
			t.Fatalf("ParseWebsite(%q) = %q, but ParseWebsite(%q) = %q, %v", raw, d, d, again, err)
		}
		if strings.HasPrefix(d, "www.") || strings.ContainsAny(d, "/:@?# ") {
			t.Fatalf("ParseWebsite(%q) = %q: not a bare domain", raw, d)
		}
	})
}
