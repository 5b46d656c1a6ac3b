package httpapi

import (
	"reflect"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/source/enrich"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

// FuzzCompanyEnrichTarget feeds any companyUrl to the body check: it never panics, and it
// either names body.companyUrl or finds exactly one of a company page or a website that is
// not on a pronet host.
func FuzzCompanyEnrichTarget(f *testing.F) {
	for _, s := range []string{"https://www.linkedin.com/company/acme/about", "acme.io", "https://www.acme.io/x?y",
		"https://www.linkedin.com/in/jane", "de.linkedin.com", "linkedin.com/company/", "ftp://a.b"} {
		f.Add(s)
	}
	s := &Server{cfg: &config.Config{PronetHosts: pronet.DefaultHosts()}}
	f.Fuzz(func(t *testing.T, raw string) {
		in := &companyEnrichInput{Body: companyEnrichRequest{CompanyURL: raw}}
		var p problems
		if err := in.check(nil, s, &p); err != nil {
			t.Fatal(err)
		}
		if len(p) > 0 {
			if len(p) != 1 || p[0].Field != "body.companyUrl" || in.slug != "" || in.domain != "" {
				t.Fatalf("%q: problems %+v, slug %q, domain %q", raw, p, in.slug, in.domain)
			}
			return
		}
		switch {
		case in.slug != "" && in.domain == "":
			if back, err := pronet.ParseCompanyURL(pronet.CompanyURL(in.slug), pronet.DefaultHosts()); err != nil || back != in.slug {
				t.Fatalf("%q: slug %q does not make a company URL: %v", raw, in.slug, err)
			}
		case in.domain != "" && in.slug == "":
			if d, err := enrich.ParseWebsite(in.domain); err != nil || d != in.domain || pronetHost(in.domain, nil) {
				t.Fatalf("%q: domain %q", raw, in.domain)
			}
		default:
			t.Fatalf("%q: slug %q and domain %q", raw, in.slug, in.domain)
		}
	})
}

// TestFeatureEnumsListEveryFeature keeps the ledger's and the breakdown's feature enums in
// step with credits.Features(): a feature missing there would fail the document's validation.
func TestFeatureEnumsListEveryFeature(t *testing.T) {
	var names []string
	for _, f := range credits.Features() {
		names = append(names, string(f))
	}
	want := strings.Join(names, ",")
	for _, typ := range []reflect.Type{reflect.TypeFor[ledgerEntry](), reflect.TypeFor[featureTotal]()} {
		f, ok := typ.FieldByName("Feature")
		if !ok {
			t.Fatalf("%s has no Feature", typ)
		}
		if got := f.Tag.Get("enum"); got != want {
			t.Errorf("%s.Feature enum = %q, want %q", typ, got, want)
		}
	}
}
