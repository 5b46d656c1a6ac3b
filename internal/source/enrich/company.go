package enrich

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/trawlhq/trawl/internal/source"
)

// Company is the part of a PDL company record Trawl uses (field names as in PDL's company
// schema). Zero values stand for what PDL has no data on.
type Company struct {
	ID                 string
	Name               string // PDL's normalised (lower-case) name
	DisplayName        string // the name as the company writes it
	Size               string // a size band: 1-10 … 10001+
	EmployeeCount      int
	Founded            int
	Industry           string
	InferredRevenue    string // a band such as $1M-$10M
	TotalFundingRaised float64
	LinkedinID         string
	LinkedinURL        string
	LinkedinSlug       string
	Website            string
	Summary            string
	Tags               []string
	Location           CompanyLocation
	// GrowthRate12Month is employee_growth_rate.12_month (a fraction, 0.1 = 10 %); nil when unknown.
	GrowthRate12Month *float64
}

// CompanyLocation is a company record's headquarters.
type CompanyLocation struct {
	Name     string
	Locality string
	Region   string
	Country  string
}

// CompanyQuery says which company to enrich: a pronet company page, a website or a name
// (the first given is sent).
type CompanyQuery struct {
	Profile string // a company page URL, e.g. linkedin.com/company/acme
	Website string // a domain, e.g. acme.io
	Name    string
}

func (q CompanyQuery) values() (url.Values, string, error) {
	switch {
	case strings.TrimSpace(q.Profile) != "":
		return url.Values{"profile": {q.Profile}}, q.Profile, nil
	case strings.TrimSpace(q.Website) != "":
		return url.Values{"website": {q.Website}}, q.Website, nil
	case strings.TrimSpace(q.Name) != "":
		return url.Values{"name": {q.Name}}, q.Name, nil
	}
	return nil, "", fmt.Errorf("enrich: company: no profile, website or name")
}

// CompanyMatch is a company enrichment answer: PDL's confidence (1-10) and the company.
type CompanyMatch struct {
	Likelihood int
	Company    Company
}

// Company enriches a company: GET /v5/company/enrich with profile, website or name, and
// titlecase=true. The answer carries the record's fields at its top level (not in data, as
// the person API does). No match (404) is source.ErrNotFound; PDL does not bill it.
func (c *Client) Company(ctx context.Context, cq CompanyQuery) (CompanyMatch, error) {
	q, what, err := cq.values()
	if err != nil {
		return CompanyMatch{}, err
	}
	q.Set("titlecase", "true")
	status, body, err := c.getJSON(ctx, "/v5/company/enrich", q)
	if err != nil {
		return CompanyMatch{}, fmt.Errorf("enrich: company %q: %w", what, err)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		if err == nil {
			err = fmt.Errorf("answer is not an object")
		}
		return CompanyMatch{}, fmt.Errorf("enrich: company %q: %w", what, source.DecodeError(SourceName, status, err))
	}
	if n, _ := m["status"].(float64); int(n) == http.StatusNotFound || (str(m["name"]) == "" && str(m["id"]) == "") {
		return CompanyMatch{}, fmt.Errorf("enrich: company %q: no match: %w", what, source.ErrNotFound)
	}
	likelihood, _ := m["likelihood"].(float64)
	return CompanyMatch{Likelihood: int(likelihood), Company: companyFrom(m)}, nil
}

// companyFrom reads a PDL company record leniently: null, and the true PDL writes in fields
// a plan may not see, read as empty; numbers may come as strings.
func companyFrom(m map[string]any) Company {
	c := Company{
		ID: str(m["id"]), Name: str(m["name"]), DisplayName: str(m["display_name"]), Size: str(m["size"]),
		EmployeeCount: int(num(m["employee_count"])), Founded: int(num(m["founded"])), Industry: str(m["industry"]),
		InferredRevenue: str(m["inferred_revenue"]), TotalFundingRaised: num(m["total_funding_raised"]),
		LinkedinID: str(m["linkedin_id"]), LinkedinURL: str(m["linkedin_url"]), LinkedinSlug: str(m["linkedin_slug"]),
		Website: str(m["website"]), Summary: str(m["summary"]), Tags: strs(m["tags"]),
	}
	if loc, ok := m["location"].(map[string]any); ok {
		c.Location = CompanyLocation{Name: str(loc["name"]), Locality: str(loc["locality"]),
			Region: str(loc["region"]), Country: str(loc["country"])}
	}
	if g, ok := m["employee_growth_rate"].(map[string]any); ok {
		if v, ok := g["12_month"].(float64); ok {
			c.GrowthRate12Month = &v
		}
	}
	return c
}

// num returns v as a number: a JSON number, or a string holding one; 0 otherwise.
func num(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case string:
		var f float64
		if _, err := fmt.Sscan(x, &f); err == nil {
			return f
		}
	}
	return 0
}
