package sandbox

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// pronetFaultPost is a roster member's post with comments and reactions at testNow.
func pronetFaultPost(t *testing.T, h http.Handler, username string) string {
	t.Helper()
	for _, p := range list(getJSON(t, h, "/pronet/profile/posts?username="+username, 200)["data"]) {
		if obj(p)["commentsCount"].(float64) > 1 && obj(p)["totalReactionCount"].(float64) > 1 {
			return obj(p)["urn"].(string)
		}
	}
	t.Fatal("no post with comments and reactions")
	return ""
}

func TestPronetThrottledHasNoRetryAfter(t *testing.T) {
	s := newTest(t, 6, testNow)
	h := s.Handler()
	for _, path := range []string{
		"/pronet/profile/posts?username=throttled-x", "/pronet/company/posts?username=throttled-acme",
		"/pronet/post?urn=throttled-7301234567890123456", "/pronet/post/comments?urn=throttled-7301234567890123456",
		"/pronet/post/reactions?urn=throttled-7301234567890123456", "/pronet/posts/search?keywords=crm+throttled-x",
		"/pronet/profile?username=THROTTLED_x",
	} {
		rec := newRecorder(h, path, map[string]string{"x-api-key": "k"})
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "" {
			t.Errorf("%s: status %d Retry-After %q, want 429 without it", path, rec.Code, rec.Header().Get("Retry-After"))
		}
	}
}

func TestPronetInvalidKey(t *testing.T) {
	h := newTest(t, 6, testNow).Handler()
	for _, key := range []string{"", "invalid", "Invalid-key-123"} {
		rec := newRecorder(h, "/pronet/profile?username=x", map[string]string{"x-api-key": key})
		if rec.Code != http.StatusUnauthorized {
			t.Errorf("key %q: status %d, want 401", key, rec.Code)
		}
	}
	if rec := newRecorder(h, "/pronet/profile?username=x", map[string]string{"x-api-key": "valid-invalid"}); rec.Code != 200 {
		t.Errorf("a key that only contains invalid: status %d, want 200", rec.Code)
	}
}

func TestPronetMalformedLists(t *testing.T) {
	s := newTest(t, 6, testNow)
	h := s.Handler()
	user := s.World().Roster()[3].PronetUsername
	urn := pronetFaultPost(t, h, user)
	slug := s.World().Companies()[11].Slug
	cases := []struct{ normal, malformed, key string }{
		{"/pronet/profile/posts?username=" + user, "/pronet/profile/posts?username=malformed-" + user, "data"},
		{"/pronet/company/posts?username=" + slug, "/pronet/company/posts?username=malformed-" + slug, "data"},
		{"/pronet/post/comments?urn=" + urn, "/pronet/post/comments?urn=malformed-" + urn, "comments"},
		{"/pronet/post/reactions?urn=" + urn, "/pronet/post/reactions?urn=malformed-" + urn, "items"},
		{"/pronet/posts/search?keywords=crm", "/pronet/posts/search?keywords=malformed-crm", "items"},
	}
	for _, c := range cases {
		items := func(path string) []any {
			v := getJSON(t, h, path, 200)
			if c.key == "data" {
				return list(v["data"])
			}
			return list(obj(v["data"])[c.key])
		}
		normal, bad := items(c.normal), items(c.malformed)
		if len(normal) < 2 || len(bad) != len(normal) {
			t.Fatalf("%s: %d items, normal %d", c.malformed, len(bad), len(normal))
		}
		if bad[0] != pronetMalformedItem {
			t.Errorf("%s: first item %v, want %q", c.malformed, bad[0], pronetMalformedItem)
		}
		a, _ := json.Marshal(bad[1:])
		b, _ := json.Marshal(normal[1:])
		if string(a) != string(b) {
			t.Errorf("%s: the other items differ from the normal answer", c.malformed)
		}
	}
	if id := obj(getJSON(t, h, "/pronet/post?urn=malformed-"+urn, 200)["data"])["urn"]; len(obj(id)) != 0 || id == nil {
		t.Errorf("malformed post urn %v, want {}", id)
	}
	if id, ok := obj(getJSON(t, h, "/pronet/profile?username=malformed-"+user, 200)["data"])["id"].(map[string]any); !ok || len(id) != 0 {
		t.Errorf("malformed profile id %v, want {}", id)
	}
}

func TestPronetSparse(t *testing.T) {
	s := newTest(t, 6, testNow)
	h := s.Handler()
	user := s.World().Roster()[3].PronetUsername
	urn := pronetFaultPost(t, h, user)
	post := obj(getJSON(t, h, "/pronet/post?urn=sparse-"+urn, 200)["data"])
	if post["urn"] != urn || post["postedDate"] == nil || post["postUrl"] == nil {
		t.Errorf("sparse post lost its ids or date: %v", post)
	}
	for _, k := range []string{"totalReactionCount", "commentsCount", "repostsCount", "postedDateTimestamp", "postedAt", "article", "image"} {
		if _, ok := post[k]; ok {
			t.Errorf("sparse post keeps %s", k)
		}
	}
	if a := obj(post["author"]); a["username"] != user || a["headline"] != nil || a["profilePictures"] != nil {
		t.Errorf("sparse author %v", a)
	}
	for _, p := range list(getJSON(t, h, "/pronet/profile/posts?username=sparse-"+user, 200)["data"]) {
		if _, ok := obj(p)["likeCount"]; ok || obj(p)["urn"] == "" {
			t.Fatalf("sparse profile post %v", p)
		}
	}
	c := obj(list(obj(getJSON(t, h, "/pronet/post/comments?urn=sparse-"+urn, 200)["data"])["comments"])[0])
	if c["urn"] == nil || c["totalSocialActivityCounts"] != nil || c["createdAt"] != nil || obj(c["author"])["title"] != nil {
		t.Errorf("sparse comment %v", c)
	}
	r := obj(list(obj(getJSON(t, h, "/pronet/post/reactions?urn=sparse-"+urn, 200)["data"])["items"])[0])
	if r["username"] == nil || r["reactionType"] == nil || r["headline"] != nil || r["profilePicture"] != nil {
		t.Errorf("sparse reactor %v", r)
	}
	prof := obj(getJSON(t, h, "/pronet/profile?username=sparse-"+user, 200)["data"])
	if prof["username"] != user || prof["headline"] != nil || prof["geo"] != nil || len(list(prof["position"])) == 0 {
		t.Errorf("sparse profile %v", prof)
	}
	search := list(obj(getJSON(t, h, "/pronet/posts/search?keywords=%22sparse-crm%22", 200)["data"])["items"])
	if len(search) == 0 || obj(search[0])["totalReactionCount"] != nil {
		t.Errorf("sparse search: %d items, first %v", len(search), search)
	}
}

func TestPronetKeywordFaults(t *testing.T) {
	for _, c := range []struct {
		in, out string
		shape   pronetShape
		ok      bool
	}{
		{"crm", "crm", pronetShapeNormal, true},
		{"malformed-crm", "crm", pronetShapeMalformed, true},
		{`"sales ops" AND (Sparse_crm OR x)`, `"sales ops" AND (crm OR x)`, pronetShapeSparse, true},
		{"non-malformed-crm", "non-malformed-crm", pronetShapeNormal, true},
		{"a throttled-x", "", pronetShapeNormal, false},
	} {
		rec := httptest.NewRecorder()
		out, shape, ok := pronetKeywordFaults(rec, c.in)
		if out != c.out || shape != c.shape || ok != c.ok {
			t.Errorf("%q: %q %v %v, want %q %v %v", c.in, out, shape, ok, c.out, c.shape, c.ok)
		}
	}
}

func FuzzPronetKeywordFaults(f *testing.F) {
	for _, s := range []string{"crm", "malformed-x", `"sparse-a b" OR throttled_c`, "sparse-", "-sparse-x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, kw string) {
		out, _, ok := pronetKeywordFaults(httptest.NewRecorder(), kw)
		if ok && len(out) > len(kw) {
			t.Fatalf("%q grew to %q", kw, out)
		}
	})
}
