package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"testing"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/internal/store"
)

// rawData is the data of an answer, decoded as a client without types
// sees it.
func rawData(t *testing.T, r *client.Response) any {
	t.Helper()
	var env struct {
		Data any `json:"data"`
	}
	if err := json.Unmarshal(r.Body, &env); err != nil {
		t.Fatalf("%v: %s", err, r.Body)
	}
	return env.Data
}

// member is obj[key], failing when obj lacks it.
func member(t *testing.T, where string, obj map[string]any, key string) any {
	t.Helper()
	v, ok := obj[key]
	if !ok {
		t.Fatalf("%s lacks %q: %v", where, key, obj)
	}
	return v
}

// wantList fails unless obj[key] is a JSON array (never null), and returns it.
func wantList(t *testing.T, where string, obj map[string]any, key string) []any {
	t.Helper()
	l, ok := member(t, where, obj, key).([]any)
	if !ok {
		t.Fatalf("%s.%s = %#v, want an array", where, key, obj[key])
	}
	return l
}

// wantObject fails unless obj[key] is a JSON object (never null), and returns it.
func wantObject(t *testing.T, where string, obj map[string]any, key string) map[string]any {
	t.Helper()
	o, ok := member(t, where, obj, key).(map[string]any)
	if !ok {
		t.Fatalf("%s.%s = %#v, want an object", where, key, obj[key])
	}
	return o
}

// wantJSON fails unless v is the JSON value want.
func wantJSON(t *testing.T, where string, v any, want string) {
	t.Helper()
	var w, g any
	got, _ := json.Marshal(v)
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &g); err != nil || !reflect.DeepEqual(g, w) {
		t.Fatalf("%s = %s, want %s", where, got, want)
	}
}

// checkPostShape asserts the shape of a pronet post record: every array of
// the spec an array, every object an object, and resharedPost only on a
// reshare, with every member. It reports whether the post is a reshare.
func checkPostShape(t *testing.T, where string, post map[string]any) bool {
	t.Helper()
	author := wantObject(t, where, post, "author")
	wantList(t, where+".author", author, "profilePictures")
	company := wantObject(t, where, post, "company")
	for _, k := range []string{"name", "url", "urn"} {
		if _, ok := member(t, where+".company", company, k).(string); !ok {
			t.Fatalf("%s.company.%s = %#v", where, k, company[k])
		}
	}
	wantObject(t, where, post, "article")
	for _, k := range []string{"video", "image"} {
		wantList(t, where, post, k)
	}
	doc := wantObject(t, where, post, "document")
	for _, cp := range wantList(t, where+".document", doc, "coverPages") {
		wantList(t, where+".document.coverPages[]", cp.(map[string]any), "imageUrls")
	}
	rp, reshare := post["resharedPost"]
	if !reshare {
		return false
	}
	r, ok := rp.(map[string]any)
	if !ok || r["text"] == "" && len(r["author"].(map[string]any)) == 0 {
		t.Fatalf("%s.resharedPost = %#v: a stub, or not an object", where, rp)
	}
	for _, k := range []string{"author", "document", "article"} {
		wantObject(t, where+".resharedPost", r, k)
	}
	for _, k := range []string{"video", "image"} {
		wantList(t, where+".resharedPost", r, k)
	}
	wantList(t, where+".resharedPost.company", wantObject(t, where+".resharedPost", r, "company"), "companyLogo")
	return true
}

// TestAnswersHaveTheSpecShapes reads each answer as a client without types
// does and checks that the spec's arrays are arrays and its objects are
// there (issue 34, item 7): pronet post records wherever they appear,
// topics, creators, mapping results, workflows, drafts, executions and
// saved searches.
func TestAnswersHaveTheSpecShapes(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, map[string]string{"TRAWL_TICK_INTERVAL": "1s"}))
		c := ts.Client

		t.Run("post records of the live lookups", func(t *testing.T) {
			reshares, plain := 0, 0
			for _, req := range []struct{ path, url string }{
				{"/v1/profile/posts", "https://www.linkedin.com/in/jane-doe"},
				{"/v1/company/posts", "https://www.linkedin.com/company/acme"},
			} {
				body := map[string]any{"profileUrl": req.url}
				if req.path == "/v1/company/posts" {
					body = map[string]any{"companyUrl": req.url}
				}
				posts, _ := rawData(t, mustDo(t, c, http.MethodPost, req.path, body, 200)).([]any)
				if len(posts) == 0 {
					t.Fatalf("%s: no posts", req.path)
				}
				for i, p := range posts {
					if checkPostShape(t, fmt.Sprintf("%s data[%d]", req.path, i), p.(map[string]any)) {
						reshares++
					} else {
						plain++
					}
				}
			}
			// Both kinds of post were seen, so both paths were checked.
			if reshares == 0 || plain == 0 {
				t.Fatalf("%d reshares and %d other posts: the sandbox should answer both", reshares, plain)
			}
		})

		// A topic created with no content_type shows its default, posts.
		r := mustDo(t, c, http.MethodPost, "/v1/topics", map[string]any{"name": "shapes", "keywords": []string{"sales"},
			"time_frame": "past-24h", "max_results": 20}, 201)
		tp := rawData(t, r).(map[string]any)
		tid := tp["id"].(string)
		t.Run("topic", func(t *testing.T) {
			got := []map[string]any{tp, rawData(t, mustDo(t, c, http.MethodGet, "/v1/topics/"+tid, nil, 200)).(map[string]any)}
			got = append(got, rawData(t, mustDo(t, c, http.MethodGet, "/v1/topics", nil, 200)).([]any)[0].(map[string]any))
			for i, o := range got {
				where := fmt.Sprintf("topic %d", i)
				if o["content_type"] != "posts" {
					t.Errorf("%s: content_type = %#v, want \"posts\"", where, o["content_type"])
				}
				for _, k := range []string{"keywords", "keywords_and", "keywords_not", "job_titles"} {
					wantList(t, where, o, k)
				}
				wantJSON(t, where+".keywords_and", o["keywords_and"], `[]`)
			}
		})

		t.Run("post records of a topic", func(t *testing.T) {
			var posts []any
			waitUntil(t, ts, "the topic's posts", func() bool {
				posts, _ = rawData(t, mustDo(t, c, http.MethodGet, "/v1/topics/"+tid+"/posts?page_size=100", nil, 200)).([]any)
				return len(posts) > 0
			})
			for i, p := range posts {
				checkPostShape(t, fmt.Sprintf("topic posts[%d]", i), p.(map[string]any))
			}
		})

		t.Run("creators and mapping", func(t *testing.T) {
			var results []any
			waitUntil(t, ts, "creators", func() bool {
				d := rawData(t, mustDo(t, c, http.MethodPost, "/v1/discover/creators", map[string]any{
					"posted_about_keywords": []string{"sales"}, "posted_about_days": 30, "page_size": 50}, 200))
				results, _ = d.(map[string]any)["results"].([]any)
				return len(results) > 0
			})
			for i, cr := range results {
				o := cr.(map[string]any)
				for _, k := range []string{"followers", "avg_last_10_engagement", "avg_days_between_posts"} {
					if _, ok := member(t, fmt.Sprintf("creator %d", i), o, k).(float64); !ok {
						t.Errorf("creator %d: %s = %#v, want a number", i, k, o[k])
					}
				}
			}
			d := rawData(t, mustDo(t, c, http.MethodPost, "/v1/social/mapping", map[string]any{"engaged_with_keywords": []string{"sales"},
				"engaged_with_days": 30, "includes": []string{"followers", "post.likes"}}, 200)).(map[string]any)
			for i, m := range wantList(t, "mapping", d, "results") {
				o := m.(map[string]any)
				if _, ok := member(t, fmt.Sprintf("mapping result %d", i), o, "followers").(float64); !ok {
					t.Errorf("mapping result %d: followers = %#v, want a number", i, o["followers"])
				}
				// Only the members asked for, each there.
				if len(o) != 2 {
					t.Errorf("mapping result %d = %v, want followers and post", i, o)
				}
				wantJSON(t, fmt.Sprintf("mapping result %d post", i), keysOf(wantObject(t, "mapping result", o, "post")), `["likes"]`)
			}
		})

		t.Run("workflows, drafts and executions", func(t *testing.T) {
			// No trigger, an action without name or inputs.
			w := rawData(t, mustDo(t, c, http.MethodPost, "/v1/workflows", map[string]any{"name": "shapes", "workflow": map[string]any{
				"actions": []any{map[string]any{"id": "stop", "kind": "builtin:exit"}},
				"edges":   []any{map[string]any{"from": "$source", "to": "stop"}}}}, 201)).(map[string]any)
			wid := w["id"].(string)
			const live = `{"trigger": {"kind": "workflows/new-post", "inputs": {}},
				"actions": [{"id": "stop", "kind": "builtin:exit", "name": "", "inputs": {}}],
				"edges": [{"from": "$source", "to": "stop"}]}`
			wantJSON(t, "created workflow", w["workflow"], live)
			wantJSON(t, "workflow", rawData(t, mustDo(t, c, http.MethodGet, "/v1/workflows/"+wid, nil, 200)).(map[string]any)["workflow"], live)
			list := rawData(t, mustDo(t, c, http.MethodGet, "/v1/workflows", nil, 200)).(map[string]any)
			wantJSON(t, "listed workflow", wantList(t, "workflows", list, "items")[0].(map[string]any)["workflow"], live)

			// A draft with a trigger without inputs, and no actions.
			d := rawData(t, mustDo(t, c, http.MethodPut, "/v1/workflows/"+wid+"/draft", map[string]any{"workflow": map[string]any{
				"trigger": map[string]any{"kind": "workflows/webhook"}, "actions": []any{}, "edges": []any{}}}, 200)).(map[string]any)
			const draft = `{"trigger": {"kind": "workflows/webhook", "inputs": {}}, "actions": [], "edges": []}`
			wantJSON(t, "draft", d["workflow"], draft)
			wantJSON(t, "draft read", rawData(t, mustDo(t, c, http.MethodGet, "/v1/workflows/"+wid+"/draft", nil, 200)).(map[string]any)["workflow"], draft)

			// A draft equal to the live definition but for what was left
			// out is in sync with it.
			d = rawData(t, mustDo(t, c, http.MethodPut, "/v1/workflows/"+wid+"/draft", map[string]any{"workflow": map[string]any{
				"trigger": map[string]any{"kind": "workflows/new-post", "inputs": map[string]any{}},
				"actions": []any{map[string]any{"id": "stop", "kind": "builtin:exit", "name": ""}},
				"edges":   []any{map[string]any{"from": "$source", "to": "stop"}}}}, 200)).(map[string]any)
			if d["is_synced"] != true {
				t.Errorf("a draft that spells out what the live definition left out: is_synced = %v", d["is_synced"])
			}

			// An execution without column_config shows [].
			run := rawData(t, mustDo(t, c, http.MethodPost, "/v1/workflows/"+wid+"/test", map[string]any{}, 200)).(map[string]any)
			runID := run["test_run_id"].(string)
			var x map[string]any
			waitUntil(t, ts, "the test run", func() bool {
				x = rawData(t, mustDo(t, c, http.MethodGet, "/v1/workflows/"+wid+"/executions/"+runID, nil, 200)).(map[string]any)
				return x["status"] != "running"
			})
			wantJSON(t, "execution column_config", x["column_config"], `[]`)
			wantList(t, "execution", x, "steps")
			xs := rawData(t, mustDo(t, c, http.MethodGet, "/v1/workflows/"+wid+"/executions", nil, 200)).([]any)
			wantJSON(t, "listed execution column_config", xs[0].(map[string]any)["column_config"], `[]`)
		})

		t.Run("saved searches", func(t *testing.T) {
			for _, tc := range []struct {
				path  string
				body  map[string]any
				lists []string // the kind's lists, [] when none was given
				none  []string // other kinds' lists, left out
			}{
				{"/v1/searches/pronet/posts", map[string]any{"name": "p", "keywords": []string{"sales"}},
					[]string{"keywords", "keywords_and", "keywords_not", "mentions_member", "mentions_organization"}, []string{"from_users"}},
				{"/v1/searches/microblog/posts", map[string]any{"name": "m", "keywords": []string{"golang"}},
					[]string{"keywords_and", "keywords_not", "from_users"}, []string{"mentions_member", "mentions_organization"}},
				{"/v1/searches/pronet/profile", map[string]any{"name": "pp", "profile_url": "https://www.linkedin.com/in/jane-doe"},
					[]string{"keywords", "keywords_and", "keywords_not"}, []string{"from_users", "mentions_member"}},
			} {
				s := rawData(t, mustDo(t, c, http.MethodPost, tc.path, tc.body, 201)).(map[string]any)
				got := rawData(t, mustDo(t, c, http.MethodGet, "/v1/searches/"+s["id"].(string), nil, 200)).(map[string]any)
				for _, o := range []map[string]any{s, got} {
					q := wantObject(t, tc.path, o, "query")
					for _, k := range tc.lists {
						wantList(t, tc.path+" query", q, k)
					}
					for _, k := range tc.none {
						if _, ok := q[k]; ok {
							t.Errorf("%s: query.%s = %v on a search of another kind", tc.path, k, q[k])
						}
					}
					wantList(t, tc.path+" filters", wantObject(t, tc.path, o, "filters"), "job_titles")
				}
			}
		})
	})
}
