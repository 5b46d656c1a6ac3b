package enrich

import (
	"strconv"
	"strings"
)

// CompanyData is an enriched company, the answer of POST /v1/company/enrich. Every field but
// domain and technologies is null when unknown. Trawl's neutral names: pronet_company_id and
// pronet_url are the hosted API's linkedin_company_id and linkedin_url.
type CompanyData struct {
	PronetCompanyID  *string  `json:"pronet_company_id" nullable:"true" doc:"Numeric id of the company's pronet page (hosted name: linkedin_company_id)."`
	PronetURL        *string  `json:"pronet_url" nullable:"true" doc:"The company's pronet page (hosted name: linkedin_url)."`
	Name             *string  `json:"name" nullable:"true" doc:"The name as the company writes it."`
	Domain           string   `json:"domain" doc:"The website's domain, without www."`
	Size             *string  `json:"size" nullable:"true" doc:"Head-count band: 1-10, 11-50, 51-200, 201-500, 501-1000, 1001-5000, 5001-10000 or 10001+."`
	Industry         *string  `json:"industry" nullable:"true"`
	Location         *string  `json:"location" nullable:"true" doc:"Headquarters: city, region, country."`
	CompanyLogo      *string  `json:"company_logo" nullable:"true" doc:"Logo URL; null when the enrichment provider has none."`
	City             *string  `json:"city" nullable:"true"`
	Country          *string  `json:"country" nullable:"true"`
	Description      *string  `json:"description" nullable:"true"`
	EmployeesCount   *string  `json:"employees_count" nullable:"true" doc:"Number of employees, as a decimal string."`
	State            *string  `json:"state" nullable:"true" doc:"Region or state of the headquarters."`
	Revenue          *string  `json:"revenue" nullable:"true" doc:"Estimated yearly revenue band, such as $10M-$25M."`
	TotalFunding     *string  `json:"total_funding" nullable:"true" doc:"Total funding raised in US dollars, as a decimal string."`
	MonthlyVisitors  *string  `json:"monthly_visitors" nullable:"true" doc:"Monthly website visitors; null when the enrichment provider has no figure."`
	Technologies     []string `json:"technologies" doc:"Technologies the company uses; [] when unknown."`
	AnnualGrowthRate *string  `json:"annual_growth_rate" nullable:"true" doc:"Head-count growth over the last 12 months, as a fraction (0.12 is 12 %)."`
}

// BuildCompanyData turns a PDL company into the API's answer. slug and domain are what the
// caller asked for, used when PDL leaves the page or the website out.
func BuildCompanyData(c Company, slug, domain string) CompanyData {
	if c.LinkedinSlug != "" {
		slug = c.LinkedinSlug
	} else if s, ok := companySlug(c.LinkedinURL); ok {
		slug = s
	}
	if d, err := ParseWebsite(c.Website); err == nil {
		domain = d
	}
	name := c.DisplayName
	if name == "" {
		name = c.Name
	}
	out := CompanyData{
		PronetCompanyID: opt(c.LinkedinID), Name: opt(name), Domain: domain, Size: opt(c.Size),
		Industry: opt(c.Industry), Location: opt(c.Location.Name), City: opt(c.Location.Locality),
		Country: opt(c.Location.Country), State: opt(c.Location.Region), Description: opt(c.Summary),
		Revenue: opt(c.InferredRevenue), Technologies: []string{},
	}
	if slug != "" {
		out.PronetURL = opt("https://www.linkedin.com/company/" + slug)
	}
	if c.EmployeeCount > 0 {
		out.EmployeesCount = opt(strconv.Itoa(c.EmployeeCount))
	}
	if c.TotalFundingRaised > 0 {
		out.TotalFunding = opt(strconv.FormatFloat(c.TotalFundingRaised, 'f', -1, 64))
	}
	if c.GrowthRate12Month != nil {
		out.AnnualGrowthRate = opt(strconv.FormatFloat(*c.GrowthRate12Month, 'f', -1, 64))
	}
	return out
}

// companySlug reads the slug of PDL's linkedin_url ("linkedin.com/company/<slug>").
func companySlug(u string) (string, bool) {
	_, rest, ok := strings.Cut(u, "linkedin.com/company/")
	if !ok {
		return "", false
	}
	slug, _, _ := strings.Cut(rest, "/")
	return slug, slug != ""
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
