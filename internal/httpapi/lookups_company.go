package httpapi

import (
	"context"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/source/enrich"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

type companyEnrichRequest struct {
	CompanyURL string `json:"companyUrl" minLength:"1" maxLength:"2048" doc:"The company's pronet page, https://www.linkedin.com/company/<name>, or its website's domain (acme.io, https://www.acme.io)." example:"https://www.linkedin.com/company/acme"`
}

type companyEnrichInput struct {
	Body   companyEnrichRequest
	slug   string // the company page asked for, or
	domain string // the website asked for
}

func (in *companyEnrichInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *companyEnrichInput) check(_ huma.Context, s *Server, p *problems) error {
	slug, pageErr := pronet.ParseCompanyURL(in.Body.CompanyURL, s.cfg.PronetHosts)
	if pageErr == nil {
		in.slug = slug
		return nil
	}
	domain, webErr := enrich.ParseWebsite(in.Body.CompanyURL)
	if webErr != nil || pronetHost(domain, s.cfg.PronetHosts) {
		p.add("body.companyUrl", "must be a company page URL such as https://www.linkedin.com/company/acme, or a website domain such as acme.io")
		return nil
	}
	in.domain = domain
	return nil
}

// pronetHost reports whether domain is one of the pronet hosts (or a country subdomain of
// one): a pronet URL that is not a company page is not a company's website.
func pronetHost(domain string, hosts []string) bool {
	if len(hosts) == 0 {
		hosts = pronet.DefaultHosts()
	}
	for _, h := range hosts {
		if domain == h || len(domain) > len(h) && domain[len(domain)-len(h)-1:] == "."+h {
			return true
		}
	}
	return false
}

func (s *Server) handleCompanyEnrich(ctx context.Context, in *companyEnrichInput) (*MeteredReply[enrich.CompanyData], error) {
	q, what, ref := enrich.CompanyQuery{Website: in.domain}, "company "+in.domain, "company-enrich:"+in.domain
	if in.slug != "" {
		q, what, ref = enrich.CompanyQuery{Profile: pronet.CompanyURL(in.slug)}, "company page "+pronet.CompanyURL(in.slug), "company-enrich:"+in.slug
	}
	ctx, bill := meterLookup(ctx, spendAction(credits.CompanyEnrich), credits.CompanyEnrich)
	m, err := s.enrich.Company(ctx, q)
	if err != nil {
		return nil, s.failLookup(ctx, bill, what, ref, err)
	}
	data := enrich.BuildCompanyData(m.Company, in.slug, in.domain)
	spent, err := s.charge(ctx, bill, 1, ref)
	if err != nil {
		return nil, err
	}
	return &MeteredReply[enrich.CompanyData]{SpentCredits: spent, Body: Envelope[enrich.CompanyData]{
		Message: "Company enriched.", Success: true, Data: data}}, nil
}
