package console

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/source"
)

// searchCreateCredits is what a create endpoint charges (the spec: "Cost: 1
// credit"); the page says it before saving. The charge itself is the API's.
const searchCreateCredits = 1

// searchNewData is the create page: the kind chosen, its form, and the
// preview when one was asked for.
type searchNewData struct {
	Kind    searchKind
	Groups  []searchGroup
	Problem *apiProblem
	Preview *searchPreview
	// WriteDenied is the permission message when the key may preview
	// (searches:read) but not save (searches:write).
	WriteDenied string
	CreateCost  int
}

// searchPreview is the preview endpoint's answer: its posts, meta and what it
// cost (x-spent-credits; a preview is free).
type searchPreview struct {
	Items          []source.Item
	Count          int
	TotalAvailable int
	MonitoringType string
	SpentCredits   string
	Problem        *apiProblem
}

// searchKindFrom is the kind a request names (?platform=&kind= or the
// form's hidden inputs); false when it answered already (400).
func (c *Console) searchKindFrom(w http.ResponseWriter, r *http.Request, platform, kind string) (searchKind, bool) {
	k, ok := searchKindOf(platform, kind)
	if !ok {
		c.message(w, r, http.StatusBadRequest, "No such kind of search",
			"Choose the platform microblog or pronet and the kind posts or profile.")
	}
	return k, ok
}

// searchNew shows the create form of the kind ?platform=&kind= name.
func (c *Console) searchNew(w http.ResponseWriter, r *http.Request, s session) {
	if !c.need(w, r, s, auth.PermSearchesRead) {
		return
	}
	k, ok := c.searchKindFrom(w, r, r.URL.Query().Get("platform"), r.URL.Query().Get("kind"))
	if !ok {
		return
	}
	c.searchNewPage(w, r, s, http.StatusOK, k, nil, apiProblem{}, nil)
}

// searchNewPage renders the create page (or, for htmx, the block of it
// that changed) with form's values and the problem's messages at them.
func (c *Console) searchNewPage(w http.ResponseWriter, r *http.Request, s session, status int, k searchKind, form url.Values, p apiProblem, pv *searchPreview) {
	c.render(w, status, "search_new", newSearchView(s, k, form, p, pv))
}

// newSearchView is the create page's view.
func newSearchView(s session, k searchKind, form url.Values, p apiProblem, pv *searchPreview) view {
	d := searchNewData{Kind: k, Groups: k.groups(form, p), Preview: pv, CreateCost: searchCreateCredits}
	if p.Has() {
		placed := p.Place(k.names()...)
		d.Problem = &placed
	}
	if !s.p.Key.Has(auth.PermSearchesWrite) {
		d.WriteDenied = lacks(auth.PermSearchesWrite)
	}
	v := s.view("New search", "searches")
	v.Data = d
	return v
}

// postSearchNew saves the search through its create endpoint: 303 to its
// page, or the form again with the API's messages at its inputs.
func (c *Console) postSearchNew(w http.ResponseWriter, r *http.Request, s session) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	k, ok := c.searchKindFrom(w, r, r.PostForm.Get("platform"), r.PostForm.Get("kind"))
	if !ok {
		return
	}
	a, err := c.api(r, s, http.MethodPost, k.path(), nil, k.body(r.PostForm))
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if !a.OK() {
		c.searchNewPage(w, r, s, a.Status, k, r.PostForm, a.Problem(), nil)
		return
	}
	var created struct {
		ID             string  `json:"id"`
		Name           string  `json:"name"`
		CreditsCharged int64   `json:"credits_charged"`
		WebhookSecret  *string `json:"webhook_secret"`
	}
	if err := a.Data(&created); err != nil {
		c.serverError(w, r, err)
		return
	}
	flash := fmt.Sprintf("Search “%s” created for %d credit(s); its first run has started.", created.Name, created.CreditsCharged)
	c.doneShowingSecret(w, r, s, "searches", "/searches/"+url.PathEscape(created.ID), flash, created.WebhookSecret)
}

// postSearchPreview sends the form to the kind's preview endpoint. htmx
// gets the preview region (or, when the API refused a field, the form with
// its messages); without JavaScript the whole page comes back, the preview
// under the still-filled form.
func (c *Console) postSearchPreview(w http.ResponseWriter, r *http.Request, s session) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	k, ok := c.searchKindFrom(w, r, r.PostForm.Get("platform"), r.PostForm.Get("kind"))
	if !ok {
		return
	}
	a, err := c.api(r, s, http.MethodPost, k.path()+"/preview", nil, k.body(r.PostForm))
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	htmx := r.Header.Get("HX-Request") != ""
	if !a.OK() {
		p := a.Problem()
		if htmx {
			// htmx swaps 2xx answers only: the form, with the messages at
			// its inputs, replaces the editor.
			w.Header().Set("HX-Retarget", "#search-editor")
			w.Header().Set("HX-Reswap", "outerHTML")
			c.searchNewBlock(w, s, k, r.PostForm, p, nil, "search-editor")
			return
		}
		c.searchNewPage(w, r, s, a.Status, k, r.PostForm, p, nil)
		return
	}
	var body struct {
		Data []source.Item `json:"data"`
		Meta struct {
			Count          int    `json:"count"`
			TotalAvailable int    `json:"total_available"`
			MonitoringType string `json:"monitoring_type"`
		} `json:"meta"`
	}
	if err := a.Decode(&body); err != nil {
		c.serverError(w, r, err)
		return
	}
	pv := &searchPreview{Items: body.Data, Count: body.Meta.Count, TotalAvailable: body.Meta.TotalAvailable,
		MonitoringType: body.Meta.MonitoringType, SpentCredits: a.Header.Get("x-spent-credits")}
	if pv.SpentCredits == "" {
		pv.SpentCredits = "0"
	}
	if htmx {
		if r.PostForm.Get("shown_problem") == "" {
			c.searchNewBlock(w, s, k, r.PostForm, apiProblem{}, pv, "search-preview")
			return
		}
		// The form shows messages this answer has none of: it is drawn
		// again without them, the preview under it.
		w.Header().Set("HX-Retarget", "#search-editor")
		w.Header().Set("HX-Reswap", "outerHTML")
		c.searchNewBlock(w, s, k, r.PostForm, apiProblem{}, pv, "search-editor")
		return
	}
	c.searchNewPage(w, r, s, http.StatusOK, k, r.PostForm, apiProblem{}, pv)
}

// searchNewBlock renders one block of the create page for htmx (200: htmx
// swaps nothing else).
func (c *Console) searchNewBlock(w http.ResponseWriter, s session, k searchKind, form url.Values, p apiProblem, pv *searchPreview, block string) {
	c.renderBlock(w, http.StatusOK, "search_new", block, newSearchView(s, k, form, p, pv))
}
