package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
)

// Leads: social mapping (POST /v1/social/mapping) and creator discovery
// (POST /v1/discover/creators), each a GET form with every field of the
// endpoint's body, asked through the API as the session's key (its
// permission, plan, credits and messages), the results as a table and
// a CSV of the same query.

// leadsTool is one of the two discovery endpoints as the console shows it.
type leadsTool struct {
	Kind    string // "mapping" or "creators"
	Title   string
	Path    string // the console page
	API     string // the API route
	Perm    auth.Permission
	Feature auth.Feature // the plan's feature; "" when no plan gates it
	Groups  []leadsGroup
}

func mappingTool() leadsTool {
	return leadsTool{Kind: "mapping", Title: "Social mapping", Path: "/leads", API: "/v1/social/mapping",
		Perm: auth.PermSocialMappingRead, Feature: auth.FeatureSocialMapping, Groups: mappingGroups()}
}

func creatorsTool() leadsTool {
	return leadsTool{Kind: "creators", Title: "Creator discovery", Path: "/leads/creators", API: "/v1/discover/creators",
		Perm: auth.PermDiscoverCreators, Groups: creatorsGroups()}
}

// denied is why the session's key may not use the tool ("" when it may):
// the permission's message, or the plan's.
func (t leadsTool) denied(s session) string {
	if !s.p.Key.Has(t.Perm) {
		return lacks(t.Perm)
	}
	if t.Feature != "" && !s.p.Account.Plan.Allows(t.Feature) {
		var with []string
		for _, p := range auth.Plans() {
			if p.Allows(t.Feature) {
				with = append(with, string(p))
			}
		}
		// The API's words for the same refusal (PLAN_REQUIRED).
		return "The " + string(s.p.Account.Plan) + " plan does not include " + string(t.Feature) + "; it needs " + strings.Join(with, " or ") + "."
	}
	return ""
}

// mappingResult is one person of social mapping; members the query's
// includes leave out are nil.
type mappingResult struct {
	FirstName     *string      `json:"first_name"`
	LastName      *string      `json:"last_name"`
	PronetURL     *string      `json:"pronet_url"`
	Location      *string      `json:"location"`
	Company       *string      `json:"company"`
	CompanyDomain *string      `json:"company_domain"`
	JobTitle      *string      `json:"job_title"`
	Followers     *int64       `json:"followers"`
	Post          *mappingPost `json:"post"`
	Engagement    *struct {
		Type string `json:"type"`
	} `json:"engagement"`
}

// mappingPost is the post a person engaged with.
type mappingPost struct {
	Text     *string `json:"text"`
	URL      *string `json:"url"`
	Date     *string `json:"date"`
	Likes    *int64  `json:"likes"`
	Comments *int64  `json:"comments"`
}

// postExcerpt is how much of a post's text the table shows, in characters.
const postExcerpt = 100

// Excerpt is the start of the post's text, for the table.
func (p mappingPost) Excerpt() string {
	if p.Text == nil {
		return ""
	}
	if r := []rune(*p.Text); len(r) > postExcerpt {
		return strings.TrimSpace(string(r[:postExcerpt])) + "…"
	}
	return *p.Text
}

// Day is the post's date as the table shows it (the day, UTC); "" when
// not included.
func (p mappingPost) Day() string {
	if p.Date == nil {
		return ""
	}
	if t, err := time.Parse(time.RFC3339, *p.Date); err == nil {
		return t.UTC().Format(time.DateOnly)
	}
	return *p.Date
}

// DisplayName is the person's name as the table shows it: the names the
// query included, else their profile's address.
func (m mappingResult) DisplayName() string {
	var parts []string
	for _, p := range []*string{m.FirstName, m.LastName} {
		if p != nil && *p != "" {
			parts = append(parts, *p)
		}
	}
	if len(parts) == 0 && m.PronetURL != nil {
		return *m.PronetURL
	}
	if len(parts) == 0 {
		return "(name not included)"
	}
	return strings.Join(parts, " ")
}

// creatorResult is one creator of creator discovery.
type creatorResult struct {
	Name                string  `json:"name"`
	PronetURL           string  `json:"pronet_url"`
	Location            string  `json:"location"`
	Company             string  `json:"company"`
	CompanyDomain       string  `json:"company_domain"`
	JobTitle            string  `json:"job_title"`
	CompanySize         string  `json:"company_size"`
	CompanyIndustry     string  `json:"company_industry"`
	Followers           int64   `json:"followers"`
	AvgLast10Engagement float64 `json:"avg_last_10_engagement"`
	AvgDaysBetweenPosts float64 `json:"avg_days_between_posts"`
	QualifyingPosts     int     `json:"qualifying_posts"`
}

// leadsPage is a page of either endpoint's answer.
type leadsPage[R any] struct {
	Results []R   `json:"results"`
	Page    int   `json:"page"`
	Total   int64 `json:"total"`
}

// leadsData is what the Leads template shows.
type leadsData struct {
	Tool    leadsTool
	Denied  string
	Groups  []inputGroup
	Problem *apiProblem
	// Ran says a query was answered; the results follow.
	Ran      bool
	People   []mappingResult
	Creators []creatorResult
	Page     int
	Pages    int64
	Total    int64
	Spent    string
	Prev     string
	Next     string
	CSV      string
}

// leadsPageSize is the page size the API uses when the query gives none.
const leadsPageSize = 10

// mappingPage is GET /leads.
func (c *Console) mappingPage(w http.ResponseWriter, r *http.Request, s session) {
	c.leadsPage(w, r, s, mappingTool())
}

// creatorsPage is GET /leads/creators.
func (c *Console) creatorsPage(w http.ResponseWriter, r *http.Request, s session) {
	c.leadsPage(w, r, s, creatorsTool())
}

// leadsPage shows the tool's form and, when the query string holds a query,
// asks the API and shows its answer: the results, or its messages at the
// form's fields.
func (c *Console) leadsPage(w http.ResponseWriter, r *http.Request, s session, t leadsTool) {
	q := r.URL.Query()
	d := leadsData{Tool: t, Denied: t.denied(s)}
	if d.Denied != "" {
		d.Groups = formInputs(t.Groups, q, apiProblem{})
		c.renderLeads(w, r, s, http.StatusForbidden, d)
		return
	}
	if len(q) == 0 {
		d.Groups = formInputs(t.Groups, q, apiProblem{})
		c.renderLeads(w, r, s, http.StatusOK, d)
		return
	}
	a, err := c.api(r, s, http.MethodPost, t.API, nil, formBody(t.Groups, q))
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	c.showAnswer(w, r, s, t, q, a)
}

// showAnswer renders the form with the API's answer to its query.
func (c *Console) showAnswer(w http.ResponseWriter, r *http.Request, s session, t leadsTool, q url.Values, a apiAnswer) {
	d := leadsData{Tool: t}
	if !a.OK() {
		p := a.Problem().Place(fieldNames(t.Groups)...)
		d.Problem, d.Groups = &p, formInputs(t.Groups, q, p)
		c.renderLeads(w, r, s, a.Status, d)
		return
	}
	d.Groups, d.Ran, d.Spent = formInputs(t.Groups, q, apiProblem{}), true, a.Header.Get("x-spent-credits")
	var err error
	switch t.Kind {
	case "creators":
		var p leadsPage[creatorResult]
		err = a.Data(&p)
		d.Creators, d.Page, d.Total = p.Results, p.Page, p.Total
	default:
		var p leadsPage[mappingResult]
		err = a.Data(&p)
		d.People, d.Page, d.Total = p.Results, p.Page, p.Total
	}
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	size := int64(leadsPageSize)
	if n, err := strconv.ParseInt(q.Get("page_size"), 10, 64); err == nil && n > 0 {
		size = n // the API accepted it
	}
	d.Pages = (d.Total + size - 1) / size
	if d.Page > 1 {
		d.Prev = pageLink(t.Path, q, d.Page-1)
	}
	if int64(d.Page) < d.Pages {
		d.Next = pageLink(t.Path, q, d.Page+1)
	}
	csv := cloneValues(q)
	csv.Del("page")
	csv.Del("page_size")
	d.CSV = t.Path + ".csv?" + csv.Encode()
	c.renderLeads(w, r, s, http.StatusOK, d)
}

// pageLink is the tool's page of the same query at page.
func pageLink(path string, q url.Values, page int) string {
	p := cloneValues(q)
	p.Set("page", strconv.Itoa(page))
	return path + "?" + p.Encode()
}

// cloneValues copies a query for a link, without its empty values (an
// empty field is left out of the body anyway): shorter links, same query.
func cloneValues(q url.Values) url.Values {
	out := make(url.Values, len(q))
	for k, vs := range q {
		for _, v := range vs {
			if v != "" {
				out[k] = append(out[k], v)
			}
		}
	}
	return out
}

// renderLeads writes the whole page, or to htmx the part it swaps (the form
// and the results), always 200 to htmx so that it swaps a refusal in too.
func (c *Console) renderLeads(w http.ResponseWriter, r *http.Request, s session, status int, d leadsData) {
	v := s.view(d.Tool.Title, "leads")
	v.Data = d
	if r.Header.Get("HX-Request") != "" && r.Header.Get("HX-History-Restore-Request") == "" {
		c.renderBlock(w, http.StatusOK, "leads", "leads-query", v)
		return
	}
	c.render(w, status, "leads", v)
}
