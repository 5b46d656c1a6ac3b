package console

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/topic"
)

// The Topics section: topic monitors listed, created, paused, resumed,
// stopped and deleted, their posts, engagers and credits. Every read and
// write is the API's topic route asked as the session's principal, so the
// permission, the plan gate and every message are the API's.

// topicsPerPage is the topics table's page; topicPostsPerPage the posts
// table's; engagersPerPage the engagers table's (the API's most is 100).
const (
	topicsPerPage     = 25
	topicPostsPerPage = 20
	engagersPerPage   = 50
)

// apiTime is one of the API's timestamps (RFC 3339), shown as the console
// shows times.
type apiTime string

// When is the time as the pages show it; the API's text when it is not a time.
func (t apiTime) When() string {
	v, err := time.Parse(time.RFC3339, string(t))
	if err != nil {
		return string(t)
	}
	return v.UTC().Format("2006-01-02 15:04 UTC")
}

// topicOut is a topic as the API shows it.
type topicOut struct {
	ID               string   `json:"id"`
	Name             string   `json:"name"`
	Status           string   `json:"status"`
	Keywords         []string `json:"keywords"`
	KeywordsAnd      []string `json:"keywords_and"`
	KeywordsNot      []string `json:"keywords_not"`
	JobTitles        []string `json:"job_titles"`
	TimeFrame        string   `json:"time_frame"`
	MaxResults       int      `json:"max_results"`
	ContentType      string   `json:"content_type"`
	SortBy           string   `json:"sort_by"`
	ExpiresAt        apiTime  `json:"expires_at"`
	LastRun          *apiTime `json:"last_run"`
	NewItems         bool     `json:"new_items"`
	NumberOfNewItems int      `json:"number_of_new_items"`
	Created          apiTime  `json:"created"`
	Updated          apiTime  `json:"updated"`
	PostsCount       int64    `json:"posts_count"`
	EngagementsCount int64    `json:"engagements_count"`
	NextRunAt        *apiTime `json:"next_run_at"`
	LastError        *string  `json:"last_error"`
}

// Ended says the topic can no longer change (STOPPED or EXPIRED are final).
func (t topicOut) Ended() bool { return t.Status == "STOPPED" || t.Status == "EXPIRED" }

// pagination is the API's paging of a topic list.
type pagination struct {
	Page       int     `json:"page"`
	PageSize   int     `json:"page_size"`
	TotalCount int64   `json:"total_count"`
	TotalPages int64   `json:"total_pages"`
	NextCursor *string `json:"next_cursor"`
}

// pager is the links of a list paged by number.
type pager struct {
	Page       int
	TotalPages int64
	Prev, Next string
}

// pagerOf links the pages before and after the API's page; base is the
// page's URL without the page parameter and keeps the others.
func pagerOf(p pagination, base string, q url.Values) pager {
	out := pager{Page: p.Page, TotalPages: p.TotalPages}
	link := func(n int) string {
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		v.Set("page", strconv.Itoa(n))
		return base + "?" + v.Encode()
	}
	if p.Page > 1 {
		out.Prev = link(p.Page - 1)
	}
	if int64(p.Page) < p.TotalPages {
		out.Next = link(p.Page + 1)
	}
	return out
}

// pageParam is the page a console URL asks for, as the API's query: the
// visitor's text, which the API judges ("" for the first page).
func pageParam(r *http.Request) string { return strings.TrimSpace(r.URL.Query().Get("page")) }

type topicsData struct {
	Topics   []topicOut
	Total    int64
	Status   string
	Statuses []string
	Pages    pager
	CanWrite bool
	Lacks    string
}

// topicsList lists the account's topics (GET /v1/topics), by status when asked.
func (c *Console) topicsList(w http.ResponseWriter, r *http.Request, s session) {
	q := url.Values{"page_size": {strconv.Itoa(topicsPerPage)}}
	keep := url.Values{}
	if p := pageParam(r); p != "" {
		q.Set("page", p)
	}
	status := r.URL.Query().Get("status")
	if status != "" {
		q.Set("status", status)
		keep.Set("status", status)
	}
	var body struct {
		Data       []topicOut `json:"data"`
		Pagination pagination `json:"pagination"`
	}
	if !c.read(w, r, s, "/v1/topics", q, &body) {
		return
	}
	v := s.view("Topics", "topics")
	v.Data = topicsData{Topics: body.Data, Total: body.Pagination.TotalCount, Status: status,
		Statuses: []string{"ACTIVE", "PAUSED", "STOPPED", "EXPIRED"},
		Pages:    pagerOf(body.Pagination, "/topics", keep),
		CanWrite: s.p.Key.Has(auth.PermTopicsWrite), Lacks: lacks(auth.PermTopicsWrite)}
	c.render(w, http.StatusOK, "topics", v)
}

// topicForm is the create form's values, as typed.
type topicForm struct {
	Name, Keywords, KeywordsAnd, KeywordsNot, JobTitles string
	TimeFrame, MaxResults, ContentType, SortBy          string
}

type topicNewData struct {
	Form         topicForm
	Problem      apiProblem
	TimeFrames   []string
	ContentTypes []string
	SortOrders   []string
	Defaults     map[string]string
}

// topicFormNames are the create form's inputs, named as the API's fields.
var topicFormNames = []string{"name", "keywords", "keywords_and", "keywords_not", "job_titles", "time_frame", "max_results", "content_type", "sort_by"}

func (c *Console) topicNewPage(w http.ResponseWriter, s session, status int, f topicForm, p apiProblem) {
	v := s.view("New topic", "topics")
	v.Data = topicNewData{Form: f, Problem: p, TimeFrames: topic.TimeFrames(), ContentTypes: topic.ContentTypes(), SortOrders: topic.SortOrders(),
		Defaults: map[string]string{"time_frame": topic.DefaultTimeFrame, "content_type": topic.DefaultContentType,
			"sort_by": topic.DefaultSortBy, "max_results": strconv.Itoa(topic.DefaultMaxResults)}}
	c.render(w, status, "topic-new", v)
}

// topicNew shows the create form; a key without topics:write reads why it
// cannot create instead.
func (c *Console) topicNew(w http.ResponseWriter, r *http.Request, s session) {
	if !c.need(w, r, s, auth.PermTopicsWrite) {
		return
	}
	c.topicNewPage(w, s, http.StatusOK, topicForm{}, apiProblem{})
}

// body is the form as POST /v1/topics's body: what is left empty is left
// out (the API's default); max_results goes as typed when it is no number,
// so the API names the problem.
func (f topicForm) body() map[string]any {
	b := map[string]any{"name": f.Name, "keywords": nonNilList(splitList(f.Keywords))}
	for name, v := range map[string]string{"keywords_and": f.KeywordsAnd, "keywords_not": f.KeywordsNot, "job_titles": f.JobTitles} {
		if items := splitList(v); len(items) > 0 {
			b[name] = items
		}
	}
	for name, v := range map[string]string{"time_frame": f.TimeFrame, "content_type": f.ContentType, "sort_by": f.SortBy} {
		if v != "" {
			b[name] = v
		}
	}
	if m := strings.TrimSpace(f.MaxResults); m != "" {
		if n, err := strconv.Atoi(m); err == nil {
			b["max_results"] = n
		} else {
			b["max_results"] = json.RawMessage(strconv.Quote(m))
		}
	}
	return b
}

func nonNilList(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// topicCreate creates the topic with POST /v1/topics (discovery starts at
// once) and goes to it; the API's refusal is shown at the form's fields.
func (c *Console) topicCreate(w http.ResponseWriter, r *http.Request, s session) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	pf := r.PostForm
	f := topicForm{Name: pf.Get("name"), Keywords: pf.Get("keywords"), KeywordsAnd: pf.Get("keywords_and"),
		KeywordsNot: pf.Get("keywords_not"), JobTitles: pf.Get("job_titles"), TimeFrame: pf.Get("time_frame"),
		MaxResults: pf.Get("max_results"), ContentType: pf.Get("content_type"), SortBy: pf.Get("sort_by")}
	a, err := c.api(r, s, http.MethodPost, "/v1/topics", nil, f.body())
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if !a.OK() {
		p := a.Problem().Place(topicFormNames...)
		c.topicNewPage(w, s, a.Status, f, p)
		return
	}
	var t topicOut
	if err := a.Data(&t); err != nil {
		c.serverError(w, r, err)
		return
	}
	c.done(w, r, "/topics/"+url.PathEscape(t.ID), "Topic "+t.Name+" created; its first discovery has started.")
}
