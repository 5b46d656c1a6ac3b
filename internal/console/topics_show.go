package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/internal/auth"
)

// topicPost is a post linked to a topic (GET /v1/topics/{id}/posts).
type topicPost struct {
	URN       string `json:"urn"`
	Text      string `json:"text"`
	PostURL   string `json:"postUrl"`
	PostedAt  string `json:"postedAt"`
	Reactions int    `json:"totalReactionCount"`
	Comments  int    `json:"commentsCount"`
	Author    struct {
		FirstName string `json:"firstName"`
		LastName  string `json:"lastName"`
		Headline  string `json:"headline"`
	} `json:"author"`
	LinkedAt          apiTime  `json:"linked_at"`
	DiscoveryInterval string   `json:"discovery_interval"`
	EngagementsCount  int64    `json:"engagements_count"`
	NextFollowUpAt    *apiTime `json:"next_follow_up_at"`
}

// PostID is the post's id in the console's URLs (the numeric activity id).
func (p topicPost) PostID() string { return strings.TrimPrefix(p.URN, "urn:li:activity:") }

// creditsSummary is GET /v1/topics/{id}/credits-summary's data.
type creditsSummary struct {
	Period struct {
		From   apiTime `json:"from"`
		To     apiTime `json:"to"`
		Source string  `json:"source"`
	} `json:"period"`
	AllocationMethod       string   `json:"allocation_method"`
	TotalCredits           float64  `json:"total_credits"`
	NewPostCredits         float64  `json:"new_post_credits"`
	EngagementCredits      float64  `json:"engagement_credits"`
	BilledPostsCount       int64    `json:"billed_posts_count"`
	BilledEngagementsCount int64    `json:"billed_engagements_count"`
	LastChargedAt          *apiTime `json:"last_charged_at"`
	ByInterval             []struct {
		Interval               string  `json:"interval"`
		Credits                float64 `json:"credits"`
		BilledEngagementsCount int64   `json:"billed_engagements_count"`
		UpstreamCost           string  `json:"upstream_cost_usd"`
	} `json:"engagement_credits_by_interval"`
	UpstreamCost         string `json:"upstream_cost_usd"`
	ProfilesUpstreamCost string `json:"profiles_upstream_cost_usd"`
}

type topicData struct {
	Topic topicOut
	// Credits is nil when the API refused it; CreditsProblem says why,
	// at the period form's from and to when they are the cause.
	Credits        *creditsSummary
	CreditsProblem apiProblem
	From, To       string
	Posts          []topicPost
	PostsTotal     int64
	PostsProblem   string
	Pages          pager
	CanWrite       bool
	Lacks          string
	// Problem is the API's refusal of the last action (pause, rename…);
	// Name the rename form's value.
	Problem apiProblem
	Name    string
}

// topicPath is the API's path of the request's topic.
func topicPath(r *http.Request) string { return "/v1/topics/" + url.PathEscape(r.PathValue("id")) }

// consolePath is the console's page of the request's topic.
func consolePath(r *http.Request) string { return "/topics/" + url.PathEscape(r.PathValue("id")) }

// readTopic asks GET /v1/topics/{id}; false when it answered the visitor (a
// 404, a 403) already.
func (c *Console) readTopic(w http.ResponseWriter, r *http.Request, s session) (topicOut, bool) {
	var t envelope[topicOut]
	ok := c.read(w, r, s, topicPath(r), nil, &t)
	return t.Data, ok
}

// topicShow is one topic: its settings and status, its credits summary,
// the actions the key may take and a page of its posts.
func (c *Console) topicShow(w http.ResponseWriter, r *http.Request, s session) {
	c.topicPage(w, r, s, http.StatusOK, apiProblem{}, nil)
}

// topicPage renders the topic's page with status; p is an action's
// refusal to show above it, name the rename form's value when it was sent.
func (c *Console) topicPage(w http.ResponseWriter, r *http.Request, s session, status int, p apiProblem, name *string) {
	t, ok := c.readTopic(w, r, s)
	if !ok {
		return
	}
	d := topicData{Topic: t, CanWrite: s.p.Key.Has(auth.PermTopicsWrite), Lacks: lacks(auth.PermTopicsWrite), Problem: p, Name: t.Name}
	if name != nil {
		d.Name = *name
	}
	// The credits' period: the billing period unless the visitor asks another.
	period := url.Values{}
	for _, name := range []string{"from", "to"} {
		if v := r.URL.Query().Get(name); v != "" {
			period.Set(name, v)
		}
	}
	d.From, d.To = period.Get("from"), period.Get("to")
	if a, err := c.api(r, s, http.MethodGet, topicPath(r)+"/credits-summary", period, nil); err != nil {
		c.serverError(w, r, err)
		return
	} else if !a.OK() {
		d.CreditsProblem = a.Problem().Place("from", "to")
		if status == http.StatusOK && a.Status == http.StatusBadRequest {
			status = a.Status
		}
	} else {
		var sum creditsSummary
		if err := a.Data(&sum); err != nil {
			c.serverError(w, r, err)
			return
		}
		d.Credits = &sum
	}
	q := url.Values{"page_size": {strconv.Itoa(topicPostsPerPage)}}
	if pg := pageParam(r); pg != "" {
		q.Set("page", pg)
	}
	if a, err := c.api(r, s, http.MethodGet, topicPath(r)+"/posts", q, nil); err != nil {
		c.serverError(w, r, err)
		return
	} else if !a.OK() {
		d.PostsProblem = a.Problem().Message
	} else {
		var body struct {
			Data       []topicPost `json:"data"`
			Pagination pagination  `json:"pagination"`
		}
		if err := a.Decode(&body); err != nil {
			c.serverError(w, r, err)
			return
		}
		d.Posts, d.PostsTotal = body.Data, body.Pagination.TotalCount
		d.Pages = pagerOf(body.Pagination, consolePath(r), period)
	}
	v := s.view(t.Name, "topics")
	v.Data = d
	c.render(w, status, "topic", v)
}

// topicActions are the status changes the topic page's buttons ask for, and
// what the page says after each.
var topicActions = map[string]string{
	"PAUSED":  "Topic paused: it collects nothing until resumed.",
	"ACTIVE":  "Topic resumed: it collects again.",
	"STOPPED": "Topic stopped: it collects no more; its posts and engagers stay.",
}

// topicStatus pauses, resumes or stops the topic (PATCH /v1/topics/{id}).
func (c *Console) topicStatus(w http.ResponseWriter, r *http.Request, s session) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	status := r.PostForm.Get("status")
	a, err := c.api(r, s, http.MethodPatch, topicPath(r), nil, map[string]any{"status": status})
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if !a.OK() {
		c.topicRefused(w, r, s, a, nil)
		return
	}
	c.done(w, r, consolePath(r), topicActions[strings.ToUpper(status)])
}

// topicRename renames the topic (PATCH /v1/topics/{id} with name).
func (c *Console) topicRename(w http.ResponseWriter, r *http.Request, s session) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	name := r.PostForm.Get("name")
	a, err := c.api(r, s, http.MethodPatch, topicPath(r), nil, map[string]any{"name": name})
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if !a.OK() {
		c.topicRefused(w, r, s, a, &name)
		return
	}
	c.done(w, r, consolePath(r), "Topic renamed.")
}

// topicRefused shows the API's refusal of an action on the topic's page;
// a topic that is gone is the API's 404 page.
func (c *Console) topicRefused(w http.ResponseWriter, r *http.Request, s session, a apiAnswer, name *string) {
	if a.Status == http.StatusNotFound {
		c.apiFailure(w, r, a)
		return
	}
	p := a.Problem().Place("name")
	c.topicPage(w, r, s, a.Status, p, name)
}

// topicDelete deletes the topic (DELETE /v1/topics/{id}): it stops at once
// and leaves the list.
func (c *Console) topicDelete(w http.ResponseWriter, r *http.Request, s session) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	t, ok := c.readTopic(w, r, s)
	if !ok {
		return
	}
	a, err := c.api(r, s, http.MethodDelete, topicPath(r), nil, nil)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if !a.OK() {
		c.topicRefused(w, r, s, a, nil)
		return
	}
	c.done(w, r, "/topics", "Topic "+t.Name+" deleted: it collects no more.")
}

type topicConfirmData struct {
	Topic  topicOut
	Delete bool
}

// topicConfirmStop and topicConfirmDelete ask before what cannot be undone:
// a page whose one form does it (no script needed).
func (c *Console) topicConfirmStop(w http.ResponseWriter, r *http.Request, s session) {
	c.topicConfirm(w, r, s, false)
}

func (c *Console) topicConfirmDelete(w http.ResponseWriter, r *http.Request, s session) {
	c.topicConfirm(w, r, s, true)
}

func (c *Console) topicConfirm(w http.ResponseWriter, r *http.Request, s session, del bool) {
	t, ok := c.readTopic(w, r, s)
	if !ok || !c.need(w, r, s, auth.PermTopicsWrite) {
		return
	}
	title := "Stop " + t.Name
	if del {
		title = "Delete " + t.Name
	}
	v := s.view(title, "topics")
	v.Data = topicConfirmData{Topic: t, Delete: del}
	c.render(w, http.StatusOK, "topic-confirm", v)
}
