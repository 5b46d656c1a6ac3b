package sandbox

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// realActivityID is the README's example: a real pronet activity id, posted 2024-11-16T07:17:52.115Z.
const realActivityID = "7263450183458918400"

var realActivityTime = time.Date(2024, 11, 16, 7, 17, 52, 115e6, time.UTC)

func TestIDSchemesDecodeEachPlatformsEpoch(t *testing.T) {
	id, ok := pronetIDs.parse(realActivityID)
	if !ok {
		t.Fatalf("pronet parse rejects %s", realActivityID)
	}
	if got := pronetIDs.timeOf(id); !got.Equal(realActivityTime) {
		t.Errorf("pronet %s dates %v, want %v (Unix milliseconds in the top bits)", realActivityID, got, realActivityTime)
	}
	// The X API documentation's example: tweet 1212092628029698048, created_at 2019-12-31T19:26:16.000Z.
	tid, ok := tweetIDs.parse("1212092628029698048")
	if !ok {
		t.Fatal("tweet parse rejects a real tweet id")
	}
	if got, want := tweetIDs.timeOf(tid).Truncate(time.Second), time.Date(2019, 12, 31, 19, 26, 16, 0, time.UTC); !got.Equal(want) {
		t.Errorf("tweet id dates %v, want %v (X's epoch)", got, want)
	}

	w := NewWorld(21)
	b := testNow.UnixMilli()/hourMS - 5
	for i := 0; i < pronetPerHour; i++ {
		p := w.PublicPronetPost(b, i)
		if got := pronetIDs.timeOf(p.URN); !got.Equal(p.Time) || int64(p.URN>>lowBits) != p.Time.UnixMilli() {
			t.Fatalf("pronet urn %d decodes to %v, post time %v", p.URN, got, p.Time)
		}
		if idKind(p.URN) != streamPublic || int(idPayload(p.URN)>>8) != i {
			t.Fatalf("pronet urn %d: stream %d payload %x, want public post %d", p.URN, idKind(p.URN), idPayload(p.URN), i)
		}
	}
	from, to := testNow.Add(-10*24*time.Hour), testNow
	own := append(w.ProfilePosts(w.Roster()[4], from, to), w.CompanyPosts(w.Companies()[4], from, to)...)
	own = append(own, w.CompanyPosts(Company{Index: -1, Slug: "not-in-roster"}, from, to)...)
	if len(own) == 0 {
		t.Fatal("no profile or company posts")
	}
	for _, p := range own {
		if !pronetIDs.timeOf(p.URN).Equal(p.Time) || len(idString(p.URN)) != 19 {
			t.Fatalf("pronet urn %d decodes to %v, post time %v", p.URN, pronetIDs.timeOf(p.URN), p.Time)
		}
	}
	for i := 0; i < tweetsPerHour; i++ {
		tw := w.PublicTweet(b, i)
		if got := tweetIDs.timeOf(tw.ID); !got.Equal(tw.Time) || int64(tw.ID>>lowBits)+1288834974657 != tw.Time.UnixMilli() {
			t.Fatalf("tweet %d decodes to %v, post time %v", tw.ID, got, tw.Time)
		}
		if got, ok := w.TweetByID(tw.ID); !ok || got.ID != tw.ID {
			t.Fatalf("TweetByID(%d) does not find the public post", tw.ID)
		}
	}
	for _, tw := range w.Timeline(w.Roster()[4], from, to, testNow) {
		if !tweetIDs.timeOf(tw.ID).Equal(tw.Time) {
			t.Fatalf("timeline tweet %d decodes to %v, post time %v", tw.ID, tweetIDs.timeOf(tw.ID), tw.Time)
		}
	}
}

// FuzzPostIDRoundTrip: for both schemes, an id minted at t decodes to t (to the millisecond), keeps
// its stream kind and payload, parses back from its decimal form and sorts between atTime(t) and
// atTime(t+1ms).
func FuzzPostIDRoundTrip(f *testing.F) {
	f.Add(testNow.UnixMilli(), uint8(streamPublic), uint64(5<<8|0x7f))
	f.Add(realActivityTime.UnixMilli(), uint8(streamRoster), uint64(1999<<4|2))
	f.Add(int64(1288834974658), uint8(streamOther), uint64(0xfffff))
	f.Fuzz(func(t *testing.T, ms int64, kind uint8, payload uint64) {
		for name, s := range map[string]idScheme{"tweet": tweetIDs, "pronet": pronetIDs} {
			// Times from the scheme's epoch until its 41 bits (and 19 digits) run out.
			if ms <= s.epochMS || ms-s.epochMS >= 1<<41 {
				continue
			}
			at := time.UnixMilli(ms).UTC()
			k := int(kind % 4)
			id := s.mint(at, k, payload)
			if !s.timeOf(id).Equal(at) || idKind(id) != k || idPayload(id) != payload&0xfffff {
				t.Fatalf("%s: mint(%v, %d, %x) = %d decodes to %v, %d, %x", name, at, k, payload, id, s.timeOf(id), idKind(id), idPayload(id))
			}
			if got, ok := s.parse(idString(id)); !ok || got != id {
				t.Fatalf("%s: parse(%d) = %d, %v", name, id, got, ok)
			}
			if id < s.atTime(at) || id >= s.atTime(at.Add(time.Millisecond)) {
				t.Fatalf("%s: id %d outside [atTime(t), atTime(t+1ms))", name, id)
			}
		}
	})
}

var (
	commentURNRE = regexp.MustCompile(`^urn:li:comment:\(activity:([0-9]{19}),([0-9]{19})\)$`)
	memberURNRE  = regexp.MustCompile(`^urn:li:member:[1-9][0-9]*$`)
	authorURNRE  = regexp.MustCompile(`^urn:li:(member|company):[1-9][0-9]*$`)
)

// A real activity id, as the README's example and any copied post URL give it, has comments and
// reactions, with ids and dates of the real scheme; a post in the future does not exist.
func TestRealActivityIDHasCommentsAndReactions(t *testing.T) {
	h := newTest(t, 1, testNow).Handler() // seed 1 is the service's default sandbox
	later := newTest(t, 1, testNow.Add(30*24*time.Hour)).Handler()
	for _, urn := range []string{realActivityID, "urn:li:activity:" + realActivityID, url.QueryEscape("urn:li:activity:" + realActivityID)} {
		v := obj(getJSON(t, h, "/pronet/post/comments?urn="+urn, 200)["data"])
		comments := list(v["comments"])
		if len(comments) == 0 || v["total"].(float64) < float64(len(comments)) {
			t.Fatalf("%s: comments %v", urn, v)
		}
		lastPage := fmt.Sprintf("&page=%v", v["totalPage"])
		comments = append(comments, list(obj(getJSON(t, h, "/pronet/post/comments?urn="+urn+lastPage, 200)["data"])["comments"])...)
		for _, c := range comments {
			cm := obj(c)
			m := commentURNRE.FindStringSubmatch(cm["urn"].(string))
			if m == nil || m[1] != realActivityID {
				t.Fatalf("comment urn %v is not urn:li:comment:(activity:%s,<19-digit id>)", cm["urn"], realActivityID)
			}
			cid, _ := strconv.ParseUint(m[2], 10, 64)
			created := time.UnixMilli(int64(cm["createdAt"].(float64))).UTC()
			if !pronetIDs.timeOf(cid).Equal(created) {
				t.Errorf("comment id %d dates %v, createdAt %v", cid, pronetIDs.timeOf(cid), created)
			}
			if created.Before(realActivityTime) || created.After(realActivityTime.Add(60*24*time.Hour)) {
				t.Errorf("comment created %v on a post of %v", created, realActivityTime)
			}
			if cm["threadUrn"] != fmt.Sprintf("urn:li:comment:(urn:li:activity:%s,%d)", realActivityID, cid) {
				t.Errorf("threadUrn %v", cm["threadUrn"])
			}
			if a := obj(cm["author"]); !memberURNRE.MatchString(a["urn"].(string)) || a["urn"] != "urn:li:member:"+a["id"].(string) {
				t.Errorf("comment author urn %v, id %v", a["urn"], a["id"])
			}
		}
		r := obj(getJSON(t, h, "/pronet/post/reactions?urn="+urn, 200)["data"])
		items := list(r["items"])
		if len(items) == 0 || r["total"].(float64) < float64(len(items)) {
			t.Fatalf("%s: reactions %v", urn, r)
		}
		for _, it := range items {
			if !memberURNRE.MatchString(obj(it)["urn"].(string)) {
				t.Errorf("reactor urn %v", obj(it)["urn"])
			}
		}
		// The post is two years old: its engagement has settled and does not move with the clock.
		for _, p := range []string{"/pronet/post/comments?urn=" + urn, "/pronet/post/comments?urn=" + urn + lastPage,
			"/pronet/post/reactions?urn=" + urn} {
			_, a := get(t, h, p)
			if _, b := get(t, later, p); string(a) != string(b) {
				t.Errorf("%s: an old post's engagement changed a month later", p)
			}
		}
	}

	// Ids after the sandbox's now are 404 on both calls; one just before now exists.
	future := pronetIDs.mint(testNow.Add(time.Minute), streamPublic, 0)
	past := pronetIDs.mint(testNow.Add(-time.Minute), streamPublic, 0)
	for _, p := range []string{"/pronet/post/comments?urn=", "/pronet/post/reactions?urn="} {
		getJSON(t, h, p+idString(future), 404)
		getJSON(t, h, p+"9999999999999999999", 404)
		getJSON(t, h, p+idString(past), 200)
	}
}

// Post records carry urns whose top bits are their postedDateTimestamp in Unix milliseconds, and
// every URL names the same urn.
func TestPronetRecordsCarryUnixMillisecondURNs(t *testing.T) {
	s := newTest(t, 22, testNow)
	h := s.Handler()
	paths := []string{"/pronet/profile/posts?username=" + s.World().Roster()[9].PronetUsername,
		"/pronet/company/posts?username=" + s.World().Companies()[9].Slug}
	var recs []any
	for _, p := range paths {
		recs = append(recs, list(getJSON(t, h, p, 200)["data"])...)
	}
	recs = append(recs, list(obj(getJSON(t, h, "/pronet/posts/search?keywords=CRM", 200)["data"])["items"])...)
	if len(recs) == 0 {
		t.Fatal("no post records")
	}
	for _, r := range recs {
		rec := obj(r)
		urn := rec["urn"].(string)
		id, ok := pronetIDs.parse(urn)
		if !ok || len(urn) != 19 {
			t.Fatalf("urn %q is not a 19-digit id", urn)
		}
		if ts := int64(rec["postedDateTimestamp"].(float64)); int64(id>>lowBits) != ts {
			t.Errorf("urn %s carries %d ms, postedDateTimestamp %d", urn, id>>lowBits, ts)
		}
		if rec["postUrl"] != "https://www.linkedin.com/feed/update/urn:li:activity:"+urn+"/" {
			t.Errorf("postUrl %v for urn %s", rec["postUrl"], urn)
		}
		if a := obj(rec["author"]); !authorURNRE.MatchString(a["urn"].(string)) {
			t.Errorf("author urn %v", a["urn"])
		}
	}
}
