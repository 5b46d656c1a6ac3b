package console

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/trawlhq/trawl/internal/mapping"
)

// engagement is one engagement of GET /v1/topics/{id}/engagements (one per
// person) or of a post's engagements.
type engagement struct {
	ID                string  `json:"id"`
	ProspectID        string  `json:"prospect_id"`
	PronetPostID      string  `json:"pronet_post_id"`
	DiscoveryInterval string  `json:"discovery_interval"`
	Created           apiTime `json:"created"`
	Prospect          struct {
		FullName  string `json:"full_name"`
		PronetURL string `json:"pronet_url"`
		JobTitle  string `json:"job_title"`
		Company   string `json:"company"`
	} `json:"prospect"`
	Engagement struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"engagement"`
}

// engagerFilters are the engagers list's filters, the API's query names.
var engagerFilters = []string{"job_title", "company", "industry", "country", "seniority"}

// filtersOf keeps the filters the visitor gave: a GET form sends its empty
// inputs too, and an empty input means no filter.
func filtersOf(q url.Values) url.Values {
	out := url.Values{}
	for _, name := range engagerFilters {
		if v := q.Get(name); v != "" {
			out.Set(name, v)
		}
	}
	return out
}

type engagersData struct {
	Topic       topicOut
	Filters     map[string]string
	Seniorities []string
	Problem     apiProblem
	Engagers    []engagement
	Total       int64
	Cursor      string
	First, Next string
	CSV         string
}

// topicEngagers lists the people who engaged with the topic's posts, with
// every filter of GET /v1/topics/{id}/engagements, paged by the API's
// cursor so a deep page costs what the first does; the filters stay in the
// paging and CSV links.
func (c *Console) topicEngagers(w http.ResponseWriter, r *http.Request, s session) {
	t, ok := c.readTopic(w, r, s)
	if !ok {
		return
	}
	filters := filtersOf(r.URL.Query())
	d := engagersData{Topic: t, Filters: map[string]string{}, Seniorities: mapping.SeniorityLevels()}
	for name := range filters {
		d.Filters[name] = filters.Get(name)
	}
	base := consolePath(r) + "/engagers"
	withFilters := func(extra ...string) string {
		v := url.Values{}
		for k, vs := range filters {
			v[k] = vs
		}
		for i := 0; i+1 < len(extra); i += 2 {
			v.Set(extra[i], extra[i+1])
		}
		if len(v) == 0 {
			return base
		}
		return base + "?" + v.Encode()
	}
	q := url.Values{"page_size": {strconv.Itoa(engagersPerPage)}, "cursor": {"start"}}
	for k, vs := range filters {
		q[k] = vs
	}
	if cur := r.URL.Query().Get("cursor"); cur != "" {
		q.Set("cursor", cur)
		d.Cursor = cur
	}
	a, err := c.api(r, s, http.MethodGet, topicPath(r)+"/engagements", q, nil)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	status := http.StatusOK
	if !a.OK() {
		if a.Status == http.StatusForbidden || a.Status == http.StatusNotFound {
			c.apiFailure(w, r, a)
			return
		}
		p := a.Problem().Place(engagerFilters...)
		d.Problem, status = p, a.Status
	} else {
		var body struct {
			Data       []engagement `json:"data"`
			Pagination pagination   `json:"pagination"`
		}
		if err := a.Decode(&body); err != nil {
			c.serverError(w, r, err)
			return
		}
		d.Engagers, d.Total = body.Data, body.Pagination.TotalCount
		if n := body.Pagination.NextCursor; n != nil && *n != "" {
			d.Next = withFilters("cursor", *n)
		}
		if d.Cursor != "" {
			d.First = withFilters()
		}
		d.CSV = consolePath(r) + "/engagers.csv"
		if len(filters) > 0 {
			d.CSV += "?" + filters.Encode()
		}
	}
	v := s.view(t.Name+" · engagers", "topics")
	v.Data = d
	// htmx swaps the filters and the list alone, a refusal too (it swaps
	// only 2xx answers); going back in history asks for the whole page.
	if r.Header.Get("HX-Request") != "" && r.Header.Get("HX-History-Restore-Request") == "" {
		c.renderBlock(w, http.StatusOK, "topic-engagers", "engagers-query", v)
		return
	}
	c.render(w, status, "topic-engagers", v)
}

// topicEngagersCSV is the API's CSV export of the engagers (format=csv)
// with the page's filters, served to the session's principal.
func (c *Console) topicEngagersCSV(w http.ResponseWriter, r *http.Request, s session) {
	q := filtersOf(r.URL.Query())
	q.Set("format", "csv")
	c.stream(w, r, s, topicPath(r)+"/engagements", q)
}

type postEngagementsData struct {
	Topic       topicOut
	PostID      string
	Engagements []engagement
	Total       int64
	Pages       pager
}

// topicPostEngagers is one post's engagements kept by the topic (GET
// /v1/topics/{id}/posts/{post_id}/engagements), paged by number.
func (c *Console) topicPostEngagers(w http.ResponseWriter, r *http.Request, s session) {
	t, ok := c.readTopic(w, r, s)
	if !ok {
		return
	}
	postID := r.PathValue("post_id")
	q := url.Values{"page_size": {strconv.Itoa(engagersPerPage)}}
	if pg := pageParam(r); pg != "" {
		q.Set("page", pg)
	}
	var body struct {
		Data       []engagement `json:"data"`
		Pagination pagination   `json:"pagination"`
	}
	if !c.read(w, r, s, topicPath(r)+"/posts/"+url.PathEscape(postID)+"/engagements", q, &body) {
		return
	}
	v := s.view(t.Name+" · post "+postID, "topics")
	v.Data = postEngagementsData{Topic: t, PostID: postID, Engagements: body.Data, Total: body.Pagination.TotalCount,
		Pages: pagerOf(body.Pagination, consolePath(r)+"/posts/"+url.PathEscape(postID), url.Values{})}
	c.render(w, http.StatusOK, "topic-post", v)
}
