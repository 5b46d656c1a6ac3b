package sandbox

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// CompanyByDomain returns the roster company whose website is on domain (www. and case
// ignored); the error-path prefixes apply to the domain's first label. A domain no roster
// company owns is ErrNotFound: PDL knows companies, it does not invent them.
func (w *World) CompanyByDomain(domain string) (Company, error) {
	d := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(domain)), "www.")
	label, _, _ := strings.Cut(d, ".")
	if !validSlug(label) {
		return Company{}, fmt.Errorf("sandbox: company domain %q: %w", domain, ErrInvalid)
	}
	if err := checkIdent(label); err != nil {
		return Company{}, fmt.Errorf("sandbox: company domain %q: %w", domain, err)
	}
	for _, c := range w.companies {
		if c.Domain == d {
			return c, nil
		}
	}
	return Company{}, fmt.Errorf("sandbox: company domain %q: %w", domain, ErrNotFound)
}

// companySlugOf reads the slug of a linkedin.com/company/… URL (scheme and www optional).
func companySlugOf(raw string) (string, bool) {
	parts, ok := pronetPath(raw)
	if !ok || len(parts) < 2 || parts[0] != "company" || !validSlug(parts[1]) {
		return "", false
	}
	return parts[1], true
}

// websiteDomain reads the host of a website given as a domain or a URL.
func websiteDomain(raw string) string {
	u, err := url.Parse(withScheme(raw))
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// pdlCompanyEnrich is PDL's GET /v5/company/enrich: one company matched by profile (its
// pronet page), website or name. Unlike the person API, the record's fields are at the top
// level of the answer, beside status and likelihood.
func (s *Sandbox) pdlCompanyEnrich(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if !pdlKeyGiven(w, r) {
		return
	}
	cs, ok := pdlCase(w, q.Get("titlecase"))
	if !ok {
		return
	}
	var (
		c   Company
		err error
	)
	switch {
	case q.Get("profile") != "":
		slug, ok := companySlugOf(q.Get("profile"))
		if !ok {
			pdlError(w, http.StatusBadRequest, "invalid_request_error", "profile must be a linkedin.com/company/ URL")
			return
		}
		c, err = s.world.Company(slug)
	case q.Get("website") != "":
		c, err = s.world.CompanyByDomain(websiteDomain(q.Get("website")))
	case q.Get("name") != "":
		c, err = s.world.companyByName(q.Get("name"))
	default:
		pdlError(w, http.StatusBadRequest, "invalid_request_error",
			"Request object must contain at least one of name, profile, ticker, website or pdl_id")
		return
	}
	switch {
	case errors.Is(err, ErrNotFound):
		pdlError(w, http.StatusNotFound, "not_found", "No records were found matching your request")
		return
	case errors.Is(err, ErrRateLimited):
		w.Header().Set("Retry-After", "2")
		pdlError(w, http.StatusTooManyRequests, "rate_limit_error", "An error occurred due to requests hitting the API too quick")
		return
	case errors.Is(err, ErrUpstream):
		pdlError(w, http.StatusInternalServerError, "error", "An internal error occurred")
		return
	case err != nil:
		pdlError(w, http.StatusBadRequest, "invalid_request_error", "Invalid company")
		return
	}
	rec := pdlCompanyRecord(c, cs)
	rec["status"] = http.StatusOK
	rec["likelihood"] = 7 + int(mix(uint64(c.ID))%4)
	writeJSON(w, http.StatusOK, rec)
}

// companyByName finds a roster company by its name (case ignored).
func (w *World) companyByName(name string) (Company, error) {
	for _, c := range w.companies {
		if strings.EqualFold(c.Name, strings.TrimSpace(name)) {
			return c, nil
		}
	}
	return Company{}, fmt.Errorf("sandbox: company named %q: %w", name, ErrNotFound)
}

// employeeBands are the head counts the size bands of sizeBands start at.
var employeeBands = []int{1, 11, 51, 201, 501, 1001, 5001, 10001}

var revenueBands = []string{"$0-$1M", "$1M-$10M", "$10M-$25M", "$25M-$50M", "$50M-$100M", "$100M-$250M", "$250M-$500M", "$1B-$10B"}

// pdlCompanyRecord renders a company in PDL's company schema (the fields Trawl reads, and a
// few beside them); cs sets the case of text values as in pdlRecord.
func pdlCompanyRecord(c Company, cs func(string) string) map[string]any {
	h := mix(uint64(c.ID))
	band := 0
	for i, b := range sizeBands {
		if b == c.SizeBand {
			band = i
		}
	}
	width := 10
	if band+1 < len(employeeBands) {
		width = employeeBands[band+1] - employeeBands[band]
	}
	employees := employeeBands[band] + int(h%uint64(width))
	var funding any // most small companies report none
	if band >= 2 || h%3 == 0 {
		funding = float64((h>>8)%500+1) * 100000 * float64(band+1)
	}
	return map[string]any{
		"id":                      fmt.Sprintf("%x", h)[:12],
		"name":                    lower(c.Name),
		"display_name":            c.Name,
		"size":                    c.SizeBand,
		"employee_count":          employees,
		"founded":                 c.Founded,
		"industry":                cs(c.Industry),
		"inferred_revenue":        revenueBands[band],
		"total_funding_raised":    funding,
		"linkedin_id":             strconv.FormatInt(c.ID, 10),
		"linkedin_url":            "linkedin.com/company/" + c.Slug,
		"linkedin_slug":           c.Slug,
		"linkedin_follower_count": c.Followers,
		"website":                 c.Domain,
		"summary":                 cs(c.Name + " is a " + c.Industry + " company based in " + c.City + ", " + c.Country + "."),
		"headline":                nil,
		"tags":                    []string{lower(c.Industry)},
		"location": map[string]any{"name": cs(c.City + ", " + c.Country), "locality": cs(c.City), "region": nil,
			"country": cs(c.Country), "continent": nil},
		"employee_growth_rate": map[string]any{"12_month": float64(int64(h>>16%61)-20) / 100},
	}
}
