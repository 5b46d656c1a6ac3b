package sandbox

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

func (s *Sandbox) enrichHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v5/person/enrich", s.pdlEnrich)
	mux.HandleFunc("GET /v5/company/enrich", s.pdlCompanyEnrich)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		pdlError(w, http.StatusNotFound, "not_found", "Endpoint not found")
	})
	return mux
}

// pdlKeyGiven answers PDL's 401 when the request carries no API key
// (header X-Api-Key or query api_key), and reports whether it carried one.
func pdlKeyGiven(w http.ResponseWriter, r *http.Request) bool {
	key := r.Header.Get("X-Api-Key")
	if key == "" {
		key = r.URL.Query().Get("api_key")
	}
	if strings.TrimSpace(key) == "" {
		pdlError(w, http.StatusUnauthorized, "authentication_error", "No API key was provided")
		return false
	}
	return true
}

// pdlCase is how PDL's titlecase parameter writes the record's names,
// answering its 400 for a value other than true or false.
func pdlCase(w http.ResponseWriter, titlecase string) (func(string) string, bool) {
	switch titlecase {
	case "", "false":
		return lower, true
	case "true":
		return pdlTitleCase, true
	}
	pdlError(w, http.StatusBadRequest, "invalid_request_error", "titlecase must be true or false")
	return nil, false
}

func pdlError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]any{"status": status, "error": map[string]any{"type": typ, "message": msg}})
}

// pronetPath reads the path segments of a linkedin.com URL (scheme and www
// optional); ok is false for another host or a URL that does not parse.
func pronetPath(raw string) ([]string, bool) {
	u, err := url.Parse(withScheme(raw))
	if err != nil {
		return nil, false
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	if host != "linkedin.com" && !strings.HasSuffix(host, ".linkedin.com") {
		return nil, false
	}
	return strings.Split(strings.Trim(u.Path, "/"), "/"), true
}

// withScheme gives a URL written without its scheme one.
func withScheme(raw string) string {
	s := strings.TrimSpace(raw)
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	return s
}

// profileUsername extracts the username of a linkedin.com/in/… URL (scheme and www optional).
func profileUsername(raw string) (string, bool) {
	parts, ok := pronetPath(raw)
	if !ok || len(parts) != 2 || parts[0] != "in" || !validSlug(parts[1]) {
		return "", false
	}
	return parts[1], true
}

func (s *Sandbox) pdlEnrich(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if !pdlKeyGiven(w, r) {
		return
	}
	profile := q.Get("profile")
	if profile == "" {
		pdlError(w, http.StatusBadRequest, "invalid_request_error", "Request object must contain a profile parameter")
		return
	}
	username, ok := profileUsername(profile)
	if !ok {
		pdlError(w, http.StatusBadRequest, "invalid_request_error", "profile must be a linkedin.com/in/ URL")
		return
	}
	minLikelihood := 2
	if v := q.Get("min_likelihood"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 10 {
			pdlError(w, http.StatusBadRequest, "invalid_request_error", "min_likelihood must be an integer between 0 and 10")
			return
		}
		minLikelihood = n
	}
	cs, ok := pdlCase(w, q.Get("titlecase"))
	if !ok {
		return
	}
	p, err := s.world.PersonByPronet(username)
	switch {
	case errors.Is(err, ErrNotFound):
		pdlError(w, http.StatusNotFound, "not_found", "No records were found matching your request")
		return
	case errors.Is(err, ErrRateLimited):
		pdlError(w, http.StatusTooManyRequests, "rate_limit_error", "An error occurred due to requests hitting the API too quick")
		return
	case errors.Is(err, ErrUpstream):
		pdlError(w, http.StatusInternalServerError, "error", "An internal error occurred")
		return
	case err != nil:
		pdlError(w, http.StatusBadRequest, "invalid_request_error", "Invalid profile")
		return
	}
	likelihood := 8 + int(mix(uint64(p.PronetID))%3)
	if likelihood < minLikelihood {
		pdlError(w, http.StatusNotFound, "not_found", "No records were found matching your request")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": 200, "likelihood": likelihood, "data": pdlRecord(p, cs)})
}

func ym(y, m int) any {
	if y == 0 {
		return nil
	}
	return fmt.Sprintf("%04d-%02d", y, m)
}

func lower(s string) string { return strings.ToLower(s) }

// pdlTitleCase is PDL's titlecase=true: every word starts with a capital, the rest is lower case.
func pdlTitleCase(s string) string {
	b := []rune(strings.ToLower(s))
	start := true
	for i, r := range b {
		if start {
			b[i] = unicode.ToUpper(r)
		}
		start = r == ' ' || r == '-' || r == '(' || r == '/'
	}
	return string(b)
}

// pdlRecord renders a person in PDL's person schema; cs sets the case of the text values
// (lower case, as PDL writes them, or title case when asked with titlecase=true).
func pdlRecord(p Person, cs func(string) string) map[string]any {
	c := p.Company
	exp := make([]any, 0, len(p.Positions))
	for i, pos := range p.Positions {
		pc := pos.Company
		exp = append(exp, map[string]any{
			"company": map[string]any{"name": cs(pc.Name), "size": pc.SizeBand, "id": strconv.FormatInt(pc.ID, 10),
				"founded": pc.Founded, "industry": cs(pc.Industry), "website": pc.Domain,
				"linkedin_url": "linkedin.com/company/" + pc.Slug,
				"location": map[string]any{"name": cs(pc.City + ", " + pc.Country), "locality": cs(pc.City),
					"country": cs(pc.Country)}},
			"start_date": ym(pos.StartYear, pos.StartMonth), "end_date": ym(pos.EndYear, pos.EndMonth),
			"title":          map[string]any{"name": cs(pos.Title), "role": nil, "sub_role": nil, "levels": []string{}},
			"location_names": []string{cs(pc.City + ", " + pc.Country)},
			"is_primary":     i == 0,
		})
	}
	langs := make([]any, 0, len(p.Languages))
	for _, l := range p.Languages {
		langs = append(langs, map[string]any{"name": languageNames[l], "proficiency": nil})
	}
	first := p.Positions[0]
	return map[string]any{
		"id":                           fmt.Sprintf("%016x_0000", mix(uint64(p.PronetID))),
		"full_name":                    cs(p.FullName()),
		"first_name":                   cs(p.FirstName),
		"last_name":                    cs(p.LastName),
		"sex":                          p.Gender,
		"linkedin_url":                 "linkedin.com/in/" + p.PronetUsername,
		"linkedin_username":            p.PronetUsername,
		"linkedin_id":                  strconv.FormatInt(p.PronetID, 10),
		"linkedin_connections":         p.Connections,
		"twitter_url":                  "twitter.com/" + p.MicroblogUsername,
		"twitter_username":             p.MicroblogUsername,
		"headline":                     p.Headline,
		"summary":                      p.Summary,
		"industry":                     cs(c.Industry),
		"job_title":                    cs(p.Title),
		"job_title_role":               p.Role,
		"job_title_sub_role":           p.SubRole,
		"job_title_class":              nil,
		"job_title_levels":             p.Levels,
		"job_company_id":               strconv.FormatInt(c.ID, 10),
		"job_company_name":             cs(c.Name),
		"job_company_website":          c.Domain,
		"work_email":                   workEmail(p, c),
		"job_company_size":             c.SizeBand,
		"job_company_founded":          c.Founded,
		"job_company_industry":         cs(c.Industry),
		"job_company_linkedin_url":     "linkedin.com/company/" + c.Slug,
		"job_company_location_country": cs(c.Country),
		"job_start_date":               ym(first.StartYear, first.StartMonth),
		"location_name":                cs(p.Location()),
		"location_locality":            cs(p.City),
		"location_country":             cs(p.Country),
		"languages":                    langs,
		"experience":                   exp,
	}
}

// workEmail is the address PDL would list for a person at their company:
// first.last@domain, ASCII lower case.
func workEmail(p Person, c Company) string {
	local := strings.ToLower(asciiOnly(p.FirstName) + "." + asciiOnly(p.LastName))
	return local + "@" + c.Domain
}

// asciiOnly keeps the letters and digits of s that are ASCII.
func asciiOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return -1
	}, s)
}
