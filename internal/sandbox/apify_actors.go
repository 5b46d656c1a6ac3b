package sandbox

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// HarvestAPI's no-cookie Apify actors (github.com/HarvestAPI/apify-linkedin-*), run over the
// world: their dataset items are the HarvestAPI REST items plus the query that found them
// (the profile actor pushes the whole REST answer, envelope and element, as its src/main.ts does).
// A value the vendor does not find (missing-…) pushes nothing, as the actors do.

// apifyField is one property of an actor's input schema.
type apifyField struct {
	kind     string // array | integer | string | boolean
	enum     []string
	itemEnum []string
	min, max int // for integers; max 0 means none
	maxItems int
}

type apifyActor struct {
	name   string // owner~name
	id     string // Apify's 17-character actor id
	schema map[string]apifyField
	run    func(s *Sandbox, in map[string]any, rd render, now time.Time) []any
}

var (
	postedLimits  = []string{"any", "24h", "week", "month", "3months", "6months", "year"}
	reactionEnums = []string{"ALL", "LIKE", "PRAISE", "EMPATHY", "APPRECIATION", "INTEREST", "ENTERTAINMENT"}
	stringList    = apifyField{kind: "array"}
)

var apifyActors = map[string]apifyActor{
	"harvestapi~linkedin-post-search": {name: "harvestapi~linkedin-post-search", id: "buIWk2uOUzTmcLsuB",
		schema: map[string]apifyField{
			"searchQueries": stringList, "maxPosts": {kind: "integer"},
			"postedLimit": {kind: "string", enum: postedLimits}, "sortBy": {kind: "string", enum: []string{"relevance", "date"}},
			"authorUrls": {kind: "array", maxItems: 20}, "authorsCompanies": {kind: "array", maxItems: 20},
			"startPage": {kind: "integer", min: 1, max: 100}, "scrapePages": {kind: "integer", min: 0, max: 100},
			"profileScraperMode": {kind: "string", enum: []string{"short", "main"}},
			"scrapeReactions":    {kind: "boolean"}, "maxReactions": {kind: "integer"},
			"scrapeComments": {kind: "boolean"}, "commentsPostedLimit": {kind: "string", enum: postedLimits},
			"maxComments": {kind: "integer"},
			"targetUrls":  stringList, "profileUrls": stringList, "companyUrls": stringList,
		},
		run: (*Sandbox).actorPostSearch},
	"harvestapi~linkedin-profile-posts": {name: "harvestapi~linkedin-profile-posts", id: "A3cAPGpwBEG8RJwse",
		schema: map[string]apifyField{
			"profileUrls": stringList, "profilePublicIdentifiers": stringList, "profileIds": stringList,
			"companyUrls": stringList, "companyPublicIdentifiers": stringList, "companyIds": stringList,
			"maxPosts": {kind: "integer"}, "scrapePages": {kind: "integer"}, "page": {kind: "integer"},
			"postedLimit": {kind: "string", enum: postedLimits},
		},
		run: (*Sandbox).actorProfilePosts},
	"harvestapi~linkedin-post-comments": {name: "harvestapi~linkedin-post-comments", id: "Wpp1BZ6yGWjySadk3",
		schema: map[string]apifyField{
			"posts": stringList, "maxItems": {kind: "integer"},
			"postedLimit": {kind: "string", enum: []string{"any", "24h", "week", "month"}},
		},
		run: (*Sandbox).actorComments},
	"harvestapi~linkedin-post-reactions": {name: "harvestapi~linkedin-post-reactions", id: "S6mgSO5lezSZKi0zN",
		schema: map[string]apifyField{
			"posts": stringList, "maxItems": {kind: "integer"},
			"reactionTypeFilter": {kind: "array", itemEnum: reactionEnums},
			"profileScraperMode": {kind: "string", enum: []string{"short", "main"}},
		},
		run: (*Sandbox).actorReactions},
	"harvestapi~linkedin-profile": {name: "harvestapi~linkedin-profile", id: "LpVuK3Zozwuipa5bp",
		schema: map[string]apifyField{
			"queries": stringList, "urls": stringList, "publicIdentifiers": stringList, "profileIds": stringList,
		},
		run: (*Sandbox).actorProfile},
}

func actorByID(id string) (apifyActor, bool) {
	id = strings.Replace(id, "/", "~", 1)
	if a, ok := apifyActors[strings.ToLower(id)]; ok {
		return a, true
	}
	for _, a := range apifyActors {
		if a.id == id {
			return a, true
		}
	}
	return apifyActor{}, false
}

// validate checks an input against the actor's schema as Apify does before a run starts.
func (a apifyActor) validate(in map[string]any) error {
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		f, ok := a.schema[k]
		v := in[k]
		if !ok || v == nil {
			continue // Apify passes properties the schema does not declare through
		}
		bad := func(what string) error { return fmt.Errorf("Field input.%s %s", k, what) }
		switch f.kind {
		case "array":
			arr, ok := v.([]any)
			if !ok {
				return bad("must be array")
			}
			if f.maxItems > 0 && len(arr) > f.maxItems {
				return bad(fmt.Sprintf("must NOT have more than %d items", f.maxItems))
			}
			for _, it := range arr {
				str, ok := it.(string)
				if !ok {
					return bad("must contain only strings")
				}
				if f.itemEnum != nil && !slices.Contains(f.itemEnum, str) {
					return bad("must be equal to one of the allowed values")
				}
			}
		case "integer":
			n, ok := v.(float64)
			if !ok || n != float64(int(n)) {
				return bad("must be integer")
			}
			if int(n) < f.min || f.max > 0 && int(n) > f.max {
				return bad(fmt.Sprintf("must be between %d and %d", f.min, f.max))
			}
		case "string":
			str, ok := v.(string)
			if !ok {
				return bad("must be string")
			}
			if f.enum != nil && !slices.Contains(f.enum, str) {
				return bad("must be equal to one of the allowed values")
			}
		case "boolean":
			if _, ok := v.(bool); !ok {
				return bad("must be boolean")
			}
		}
	}
	return nil
}

// inputFault is the worst fault any string of the input carries.
func inputFault(v any) vendorFault {
	f := faultNone
	switch x := v.(type) {
	case string:
		for _, w := range strings.Fields(x) {
			if i := strings.LastIndexByte(strings.TrimSuffix(w, "/"), '/'); i >= 0 {
				w = strings.TrimSuffix(w, "/")[i+1:]
			}
			for _, sep := range []string{"activity:", "-activity-"} {
				if i := strings.LastIndex(w, sep); i >= 0 {
					w = w[i+len(sep):]
				}
			}
			wf, _ := cutFault(strings.TrimLeft(w, `"(`))
			f = worst(f, wf)
		}
	case []any:
		for _, it := range x {
			f = worst(f, inputFault(it))
		}
	case map[string]any:
		for _, it := range x {
			f = worst(f, inputFault(it))
		}
	}
	return f
}

func strs(v any) []string {
	var out []string
	arr, _ := v.([]any)
	for _, it := range arr {
		if s, ok := it.(string); ok && strings.TrimSpace(s) != "" {
			out = append(out, strings.TrimSpace(s))
		}
	}
	return out
}

func intOr(v any, def int) int {
	if n, ok := hvAtoi(v); ok {
		return n
	}
	return def
}

func str(v any) string { s, _ := v.(string); return s }

func withQuery(item map[string]any, q map[string]any) map[string]any {
	item["query"] = q
	return item
}

// capItems keeps at most n items (n <= 0 keeps all).
func capItems[T any](xs []T, n int) []T {
	if n > 0 && len(xs) > n {
		return xs[:n]
	}
	return xs
}

// pagesOf is what startPage and scrapePages select of a list paged by size.
func pagesOf[T any](all []T, start, pages, size int) []T {
	lo := min((max(start, 1)-1)*size, len(all))
	hi := len(all)
	if pages > 0 {
		hi = min(lo+pages*size, len(all))
	}
	return all[lo:hi]
}

func (s *Sandbox) actorPostSearch(in map[string]any, rd render, now time.Time) []any {
	var out []any
	window := vendorWindows[str(in["postedLimit"])]
	byDate := str(in["sortBy"]) == "date"
	var queries, authors []string
	for _, q := range strs(in["searchQueries"]) {
		if strings.HasPrefix(q, "https://") || strings.HasPrefix(q, "http://") {
			authors = append(authors, q)
		} else {
			queries = append(queries, q)
		}
	}
	for _, k := range []string{"authorUrls", "targetUrls", "profileUrls", "companyUrls"} {
		authors = append(authors, strs(in[k])...)
	}
	start, pages, maxPosts := intOr(in["startPage"], 1), intOr(in["scrapePages"], 0), intOr(in["maxPosts"], 0)
	// Authors narrow a search to their posts; without a search they list them.
	byAuthor := map[string]bool{}
	var authorLists [][]PronetPost
	for _, a := range authors {
		p, c, err := s.authorOf(a)
		if err != nil {
			continue
		}
		posts := s.authorPosts(p, c, window, now)
		authorLists = append(authorLists, posts)
		for _, post := range posts {
			byAuthor[idString(post.URN)] = true
		}
	}
	for _, q := range queries {
		_, kw := keywordFault(q)
		posts, err := s.runVendorSearch(vendorSearch{keywords: kw, window: window, byDate: byDate}, now)
		if err != nil {
			continue
		}
		if len(authors) > 0 {
			posts = slices.DeleteFunc(posts, func(p PronetPost) bool { return !byAuthor[idString(p.URN)] })
		}
		query := map[string]any{"search": q, "sortBy": str(in["sortBy"]), "postedLimit": str(in["postedLimit"]), "page": start}
		for _, p := range capItems(pagesOf(posts, start, pages, hvSearchPageSize), maxPosts) {
			out = append(out, withQuery(s.vendorPost(p, now, rd.sparse), query))
		}
	}
	if len(queries) == 0 {
		for i, posts := range authorLists {
			query := map[string]any{"targetUrl": authors[i], "sortBy": str(in["sortBy"]), "page": start}
			for _, p := range capItems(pagesOf(posts, start, pages, hvPostsPageSize), maxPosts) {
				out = append(out, withQuery(s.vendorPost(p, now, rd.sparse), query))
			}
		}
	}
	return out
}

// authorOf finds the profile or company page of a URL or identifier.
func (s *Sandbox) authorOf(v string) (*Person, *Company, error) {
	if strings.Contains(v, "linkedin.com/company/") {
		c, _, err := s.world.vendorCompany(v)
		return nil, &c, err
	}
	p, _, err := s.world.vendorPerson(v)
	return &p, nil, err
}

func (s *Sandbox) actorProfilePosts(in map[string]any, rd render, now time.Time) []any {
	var out []any
	maxPosts := intOr(in["maxPosts"], 100)
	start, pages := intOr(in["page"], 1), intOr(in["scrapePages"], 0)
	window := vendorPostWindows[str(in["postedLimit"])]
	type target struct {
		param, value string
		company      bool
	}
	var targets []target
	for _, k := range []struct {
		field, param string
		company      bool
	}{
		{"profileUrls", "profile", false}, {"profilePublicIdentifiers", "profilePublicIdentifier", false},
		{"profileIds", "profileId", false}, {"companyUrls", "company", true},
		{"companyPublicIdentifiers", "companyUniversalName", true}, {"companyIds", "companyId", true},
	} {
		for _, v := range strs(in[k.field]) {
			targets = append(targets, target{k.param, v, k.company})
		}
	}
	for _, t := range targets {
		var posts []PronetPost
		if t.company {
			c, _, err := s.world.vendorCompany(t.value)
			if err != nil {
				continue
			}
			posts = s.authorPosts(nil, &c, window, now)
		} else {
			p, _, err := s.world.vendorPerson(t.value)
			if err != nil {
				continue
			}
			posts = s.authorPosts(&p, nil, window, now)
		}
		query := map[string]any{t.param: t.value, "page": start}
		for _, p := range capItems(pagesOf(posts, start, pages, hvPostsPageSize), maxPosts) {
			out = append(out, withQuery(s.vendorPost(p, now, rd.sparse), query))
		}
	}
	return out
}

func (s *Sandbox) actorComments(in map[string]any, rd render, now time.Time) []any {
	var out []any
	limit := str(in["postedLimit"])
	window := map[string]time.Duration{"24h": 24 * time.Hour, "week": 7 * 24 * time.Hour, "month": 30 * 24 * time.Hour}[limit]
	for _, post := range strs(in["posts"]) {
		urn, _, err := vendorPostURN(post, now)
		if err != nil {
			continue
		}
		query := map[string]any{"post": post, "postedLimit": limit}
		for _, c := range capItems(s.postComments(urn, window, false, now), intOr(in["maxItems"], 0)) {
			out = append(out, withQuery(s.vendorComment(c, now, rd.sparse), query))
		}
	}
	return out
}

func (s *Sandbox) actorReactions(in map[string]any, rd render, now time.Time) []any {
	var out []any
	types := strs(in["reactionTypeFilter"])
	all := len(types) == 0 || slices.Contains(types, "ALL")
	for _, post := range strs(in["posts"]) {
		urn, _, err := vendorPostURN(post, now)
		if err != nil {
			continue
		}
		reactors := slices.DeleteFunc(s.world.Reactors(urn, now), func(r Reactor) bool { return !all && !slices.Contains(types, r.Type) })
		query := map[string]any{"post": post}
		for _, rc := range capItems(reactors, intOr(in["maxItems"], 0)) {
			out = append(out, withQuery(s.vendorReaction(urn, rc, now, rd.sparse), query))
		}
	}
	return out
}

// actorProfile pushes the REST answer of each profile found, without its user member.
func (s *Sandbox) actorProfile(in map[string]any, rd render, now time.Time) []any {
	var out []any
	for _, k := range []struct{ field, param string }{{"urls", "url"}, {"publicIdentifiers", "publicIdentifier"},
		{"profileIds", "profileId"}, {"queries", "query"}} {
		for _, v := range strs(in[k.field]) {
			if strings.Contains(v, "linkedin.com/") && !strings.Contains(v, "linkedin.com/in/") {
				continue // company pages go to HarvestAPI's company endpoint, outside this sandbox
			}
			p, _, err := s.world.vendorPerson(v)
			if errors.Is(err, ErrNotFound) || err != nil {
				continue
			}
			el := s.vendorProfile(p, rd.sparse)
			q := map[string]any{k.param: v}
			h := hashString(s.world.seed^0xa3, v+now.Format(time.RFC3339Nano))
			out = append(out, map[string]any{"entityId": el["id"], "requestId": fmt.Sprintf("%016x", h), "status": 200,
				"error": nil, "query": q, "originalQuery": q, "payments": []any{"profile"}, "cost": hvCost["profile"],
				"element": el})
		}
	}
	return out
}
