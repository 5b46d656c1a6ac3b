package sandbox

import (
	"bytes"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hvGet gets a HarvestAPI path and decodes the envelope.
func hvGet(t *testing.T, h http.Handler, path string, want int) map[string]any {
	t.Helper()
	return getJSON(t, h, "/harvestapi/linkedin/"+path, want)
}

// hvAll pages through a HarvestAPI list with paginationToken and returns every element's key.
func hvAll(t *testing.T, h http.Handler, path, key string) []string {
	t.Helper()
	var out []string
	tok := ""
	for pages := 0; pages < 200; pages++ {
		p := path
		if tok != "" {
			p += "&paginationToken=" + url.QueryEscape(tok)
		}
		v := hvGet(t, h, p, 200)
		for _, e := range list(v["elements"]) {
			out = append(out, str(obj(e)[key]))
		}
		tok = str(obj(v["pagination"])["paginationToken"])
		if tok == "" {
			return out
		}
	}
	t.Fatal("pagination does not end")
	return nil
}

// pronetAll pages through a contract list by page number and returns each record's key.
func pronetAll(t *testing.T, h http.Handler, path, field, key string) []string {
	t.Helper()
	var out []string
	for page := 1; page < 1000; page++ {
		data := obj(getJSON(t, h, path+"&page="+strconv.Itoa(page), 200)["data"])
		items := list(data[field])
		for _, it := range items {
			out = append(out, str(obj(it)[key]))
		}
		if page >= int(data["totalPage"].(float64)) {
			return out
		}
	}
	return out
}

// engagedPost is a public post of about two days old with comments and reactions.
func engagedPost(t *testing.T, s *Sandbox) PronetPost {
	t.Helper()
	for b := testNow.Add(-50*time.Hour).UnixMilli() / hourMS; ; b-- {
		for i := 0; i < pronetPerHour; i++ {
			p := s.World().PublicPronetPost(b, i)
			if len(s.World().Comments(p.URN, testNow)) > 12 && len(s.World().Reactors(p.URN, testNow)) > 120 {
				return p
			}
		}
	}
}

func sameList(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("%s: %d items, want %d (non-zero)", what, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: item %d is %s, want %s", what, i, got[i], want[i])
		}
	}
}

func TestHarvestAPIProfilePostsAgreeWithContract(t *testing.T) {
	s := newTest(t, 6, testNow)
	h := s.Handler()
	p := s.World().Roster()[3]
	var want []string
	tok := ""
	for {
		path := "/pronet/profile/posts?username=" + p.PronetUsername
		if tok != "" {
			path += "&paginationToken=" + tok
		}
		v := getJSON(t, h, path, 200)
		for _, it := range list(v["data"]) {
			want = append(want, str(obj(it)["urn"]))
		}
		if tok = str(v["paginationToken"]); tok == "" {
			break
		}
	}
	id := s.World().vendorProfileID(p)
	for _, form := range []string{"profile=" + url.QueryEscape(p.PronetURL()), "profilePublicIdentifier=" + p.PronetUsername,
		"profileId=" + id, "profile=" + url.QueryEscape("https://www.linkedin.com/in/"+p.PronetUsername+"?trk=x")} {
		sameList(t, form, hvAll(t, h, "profile-posts?"+form, "id"), want)
	}
	v := hvGet(t, h, "profile-posts?profilePublicIdentifier="+p.PronetUsername, 200)
	for _, k := range []string{"entityId", "requestId", "status", "error", "query", "originalQuery", "user", "payments", "cost", "elements", "pagination"} {
		if _, ok := v[k]; !ok {
			t.Errorf("envelope lacks %s", k)
		}
	}
	pg := obj(v["pagination"])
	if pg["pageSize"].(float64) != hvPostsPageSize || pg["pageNumber"].(float64) != 1 || len(list(v["elements"])) != hvPostsPageSize {
		t.Fatalf("pagination %v", pg)
	}
	post := obj(list(v["elements"])[0])
	if !strings.HasPrefix(str(post["linkedinUrl"]), "https://www.linkedin.com/posts/"+p.PronetUsername+"_") ||
		!strings.Contains(str(post["linkedinUrl"]), "-activity-"+str(post["id"])+"-") {
		t.Errorf("post URL %v", post["linkedinUrl"])
	}
	if obj(post["author"])["publicIdentifier"] != p.PronetUsername || obj(post["engagement"]) == nil ||
		obj(post["postedAt"])["timestamp"] == nil {
		t.Errorf("post %v", post)
	}
	// page=2 is the second page.
	p2 := list(hvGet(t, h, "profile-posts?profilePublicIdentifier="+p.PronetUsername+"&page=2", 200)["elements"])
	if str(obj(p2[0])["id"]) != want[hvPostsPageSize] {
		t.Error("page=2 does not start at the 21st post")
	}
	if len(id) != 39 || !strings.HasPrefix(id, "ACoAA") {
		t.Errorf("profile id %q", id)
	}
}

func TestHarvestAPICompanyPostsAgreeWithContract(t *testing.T) {
	s := newTest(t, 7, testNow)
	h := s.Handler()
	c := s.World().Companies()[11]
	var want []string
	for start := 0; ; start += 50 {
		data := list(getJSON(t, h, "/pronet/company/posts?username="+c.Slug+"&start="+strconv.Itoa(start), 200)["data"])
		for _, it := range data {
			want = append(want, str(obj(it)["urn"]))
		}
		if len(data) < 50 {
			break
		}
	}
	for _, form := range []string{"company=" + url.QueryEscape(c.URL()), "companyUniversalName=" + c.Slug, "companyId=" + strconv.Itoa(int(c.ID))} {
		sameList(t, form, hvAll(t, h, "company-posts?"+form, "id"), want)
	}
}

func TestHarvestAPIPostCommentsReactions(t *testing.T) {
	s := newTest(t, 8, testNow)
	h := s.Handler()
	p := engagedPost(t, s)
	id := idString(p.URN)
	forms := []string{id, "urn:li:activity:" + id, "https://www.linkedin.com/feed/update/urn:li:activity:" + id + "/",
		vendorPostURL(p), vendorPostURL(p) + "?utm_source=share"}
	for _, f := range forms {
		v := hvGet(t, h, "post?post="+url.QueryEscape(f), 200)
		if v["entityId"] != id || obj(v["element"])["id"] != id || obj(v["element"])["content"] != p.Text {
			t.Fatalf("post %s: %v", f, v["element"])
		}
	}
	contractComments := pronetAll(t, h, "/pronet/post/comments?urn="+id, "comments", "text")
	sameList(t, "comments", hvAll(t, h, "post-comments?post="+id, "commentary"), contractComments)
	var contractReactors []string
	for _, u := range pronetAll(t, h, "/pronet/post/reactions?urn="+id, "items", "profileUrl") {
		contractReactors = append(contractReactors, u)
	}
	var got []string
	tok := ""
	for {
		path := "post-reactions?post=" + url.QueryEscape(vendorPostURL(p))
		if tok != "" {
			path += "&paginationToken=" + url.QueryEscape(tok)
		}
		v := hvGet(t, h, path, 200)
		for _, e := range list(v["elements"]) {
			got = append(got, str(obj(obj(e)["actor"])["linkedinUrl"]))
			if obj(e)["postId"] != id || !strings.HasPrefix(str(obj(obj(e)["actor"])["id"]), "ACoAA") {
				t.Fatalf("reaction %v", e)
			}
		}
		if tok = str(obj(v["pagination"])["paginationToken"]); tok == "" {
			break
		}
	}
	sameList(t, "reactions", got, contractReactors)
	// page=2 of the comments is the 21st onwards.
	c2 := list(hvGet(t, h, "post-comments?post="+id+"&page=2", 200)["elements"])
	if len(contractComments) > hvCommentsPageSize && str(obj(c2[0])["commentary"]) != contractComments[hvCommentsPageSize] {
		t.Error("comments page=2")
	}
	byDate := list(hvGet(t, h, "post-comments?post="+id+"&sortBy=date", 200)["elements"])
	if str(obj(byDate[0])["commentary"]) != contractComments[len(contractComments)-1] {
		t.Error("sortBy=date is not newest first")
	}
}

func TestHarvestAPIProfile(t *testing.T) {
	s := newTest(t, 9, testNow)
	h := s.Handler()
	p := s.World().Roster()[42]
	for _, form := range []string{"url=" + url.QueryEscape(p.PronetURL()), "publicIdentifier=" + p.PronetUsername,
		"profileId=" + s.World().vendorProfileID(p)} {
		el := obj(hvGet(t, h, "profile?"+form, 200)["element"])
		if el["publicIdentifier"] != p.PronetUsername || el["headline"] != p.Headline || el["firstName"] != p.FirstName ||
			len(list(el["experience"])) != len(p.Positions) {
			t.Fatalf("%s: %v", form, el)
		}
	}
	contract := obj(getJSON(t, h, "/pronet/profile?username="+p.PronetUsername, 200)["data"])
	el := obj(hvGet(t, h, "profile?publicIdentifier="+p.PronetUsername, 200)["element"])
	if el["followerCount"] != contract["followerCount"] || el["connectionsCount"] != contract["connectionCount"] {
		t.Error("profile counts differ from the contract's")
	}
}

func TestHarvestAPISearchAgreesWithContract(t *testing.T) {
	s := newTest(t, 10, testNow)
	h := s.Handler()
	kw := s.World().TopicKeywords(0)[0]
	for _, c := range []struct{ harvest, contract string }{
		{"search=" + url.QueryEscape(kw), "keywords=" + url.QueryEscape(kw)},
		{"search=" + url.QueryEscape(kw) + "&sortBy=date&postedLimit=week", "keywords=" + url.QueryEscape(kw) + "&sortBy=date_posted&datePosted=past-week"},
		{"search=" + url.QueryEscape(kw) + "&contentType=images", "keywords=" + url.QueryEscape(kw) + "&contentType=photos"},
	} {
		want := pronetAll(t, h, "/pronet/posts/search?"+c.contract, "items", "urn")
		sameList(t, c.harvest, hvAll(t, h, "post-search?"+c.harvest, "id"), want)
	}
	// Mentions: a member by profile URL, the same as by member urn in the contract.
	m := s.World().MostMentioned()[0]
	want := pronetAll(t, h, "/pronet/posts/search?mentionsMember="+url.QueryEscape(m.PronetURN()), "items", "urn")
	sameList(t, "mentioningMember", hvAll(t, h, "post-search?mentioningMember="+url.QueryEscape(m.PronetURL()), "id"), want)
	v := hvGet(t, h, "post-search?search="+url.QueryEscape(kw)+"&page=2", 200)
	if obj(v["pagination"])["pageNumber"].(float64) != 2 || obj(v["pagination"])["previousElements"].(float64) != hvSearchPageSize {
		t.Errorf("page 2 pagination %v", v["pagination"])
	}
}

func TestHarvestAPIFaults(t *testing.T) {
	s := newTest(t, 11, testNow)
	h := s.Handler()
	p := engagedPost(t, s)
	id := idString(p.URN)
	user := s.World().Roster()[5].PronetUsername
	for _, ep := range []struct{ path, param, base string }{
		{"profile-posts", "profilePublicIdentifier", user},
		{"company-posts", "companyUniversalName", s.World().Companies()[4].Slug},
		{"post", "post", id},
		{"post-comments", "post", id},
		{"post-reactions", "post", id},
		{"profile", "publicIdentifier", user},
		{"post-search", "search", "ai"},
	} {
		for _, c := range []struct {
			prefix string
			status int
			retry  string
		}{{"missing-", 404, ""}, {"error-", 500, ""}, {"ratelimited-", 429, "2"}, {"throttled-", 429, ""}} {
			if ep.path == "post-search" && c.prefix == "missing-" {
				continue // a missing- word is an ordinary word
			}
			rec := newRecorder(h, "/harvestapi/linkedin/"+ep.path+"?"+ep.param+"="+c.prefix+ep.base, map[string]string{"X-API-KEY": "k"})
			if rec.Code != c.status || rec.Header().Get("Retry-After") != c.retry || !strings.Contains(rec.Body.String(), `"error":"`) {
				t.Errorf("%s %s: %d retry %q: %s", ep.path, c.prefix, rec.Code, rec.Header().Get("Retry-After"), rec.Body.String())
			}
		}
		sparse := hvGet(t, h, ep.path+"?"+ep.param+"=sparse-"+ep.base, 200)
		malformed := hvGet(t, h, ep.path+"?"+ep.param+"=malformed-"+ep.base, 200)
		if el, ok := sparse["element"]; ok {
			e := obj(el)
			if e["engagement"] != nil || e["headline"] != nil || e["photo"] != nil || e["id"] == nil {
				t.Errorf("%s sparse: %v", ep.path, e)
			}
			if _, isObj := obj(malformed["element"])["id"].(map[string]any); !isObj {
				t.Errorf("%s malformed: id %v", ep.path, obj(malformed["element"])["id"])
			}
			continue
		}
		els := list(sparse["elements"])
		if len(els) < 2 {
			t.Fatalf("%s sparse: %d elements", ep.path, len(els))
		}
		for _, e := range els {
			o := obj(e)
			if o["engagement"] != nil || o["postImages"] != nil || o["createdAtTimestamp"] != nil ||
				obj(o["actor"])["position"] != nil || obj(o["author"])["avatar"] != nil || o["id"] == nil {
				t.Fatalf("%s sparse item %v", ep.path, o)
			}
		}
		mels := list(malformed["elements"])
		if len(mels) != len(els) || mels[0] != "<html>" || obj(mels[1])["id"] != obj(els[1])["id"] {
			t.Errorf("%s malformed: first %v", ep.path, mels[0])
		}
	}
	for _, key := range []string{"", "invalid-key"} {
		rec := newRecorder(h, "/harvestapi/linkedin/test", map[string]string{"X-API-KEY": key})
		if rec.Code != 401 || strings.Contains(rec.Body.String(), "invalid-key") && key != "" {
			t.Errorf("key %q: %d %s", key, rec.Code, rec.Body.String())
		}
	}
	if rec := newRecorder(h, "/harvestapi/linkedin/test", map[string]string{"X-API-KEY": "good"}); rec.Code != 200 {
		t.Errorf("test: %d", rec.Code)
	}
}

func TestHarvestAPIBadParams(t *testing.T) {
	s := newTest(t, 12, testNow)
	h := s.Handler()
	for _, path := range []string{"profile-posts", "company-posts?page=1", "post", "post-comments?post=abc",
		"post-search", "post-search?search=x&sortBy=new", "post-search?search=x&postedLimit=decade",
		"post-search?search=x&contentType=gifs", "post-search?search=(x", "profile-posts?profile=u&page=0",
		"profile-posts?profile=u&paginationToken=zz", "profile", "post-reactions?post=https://example.com/x"} {
		hvGet(t, h, path, 400)
	}
	hvGet(t, h, "profile?profileId=ACoAAnotarealid", 404)
	hvGet(t, h, "nope", 404)
}

func TestHarvestAPIDeterministic(t *testing.T) {
	path := "/harvestapi/linkedin/post-search?search=ai&sortBy=date"
	_, a := get(t, newTest(t, 13, testNow).Handler(), path)
	_, b := get(t, newTest(t, 13, testNow).Handler(), path)
	if !bytes.Equal(a, b) {
		t.Fatal("same seed and clock gave different bytes")
	}
}

// A page past the end of a list is an empty page with the list's pagination; only the search
// stops at page 100, as LinkedIn's does.
func TestHarvestAPIPagePastTheEnd(t *testing.T) {
	s := newTest(t, 8, testNow)
	h := s.Handler()
	id := idString(engagedPost(t, s).URN)
	for _, tc := range []struct {
		path string
		size float64
	}{
		{"post-reactions?post=" + id, hvReactionsPageSize},
		{"post-comments?post=" + id, hvCommentsPageSize},
		{"profile-posts?profile=jane-doe", hvPostsPageSize},
		{"company-posts?companyUniversalName=" + s.World().Companies()[3].Slug, hvPostsPageSize},
	} {
		first := obj(hvGet(t, h, tc.path, 200)["pagination"])
		v := hvGet(t, h, tc.path+"&page=1000", 200)
		pg := obj(v["pagination"])
		if els, ok := v["elements"].([]any); !ok || len(els) != 0 || pg["totalElements"] != first["totalElements"] ||
			pg["pageNumber"] != float64(1000) || pg["paginationToken"] != nil || pg["pageSize"] != tc.size || first["totalElements"] == float64(0) {
			t.Errorf("%s page 1000: elements %v, pagination %v (page 1: %v)", tc.path, v["elements"], pg, first)
		}
	}
	hvGet(t, h, "post-search?search=sales&page=100", 200)
	hvGet(t, h, "post-search?search=sales&page=101", 400)
}
