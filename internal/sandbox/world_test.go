package sandbox

import (
	"bytes"
	"context"
	"net/http"
	"testing"
)

func TestDeterminism(t *testing.T) {
	paths := []string{
		"/microblog/2/tweets/search/recent?query=AI&max_results=100&tweet.fields=public_metrics,entities,created_at&expansions=author_id,referenced_tweets.id",
		"/pronet/posts/search?keywords=CRM",
		"/pronet/profile?username=jane-doe",
		"/enrich/v5/person/enrich?profile=linkedin.com/in/jane-doe",
	}
	a, b, c := newTest(t, 11, testNow).Handler(), newTest(t, 11, testNow).Handler(), newTest(t, 12, testNow).Handler()
	for _, p := range paths {
		_, ba := get(t, a, p)
		_, bb := get(t, b, p)
		_, bc := get(t, c, p)
		if !bytes.Equal(ba, bb) {
			t.Errorf("%s: same seed, different bytes", p)
		}
		if bytes.Equal(ba, bc) {
			t.Errorf("%s: different seeds, same bytes", p)
		}
	}
}

func TestIdentityAcrossPlatforms(t *testing.T) {
	w := NewWorld(13)
	r := w.Roster()[100]
	if p, _ := w.PersonByPronet(r.PronetUsername); p.MicroblogUsername != r.MicroblogUsername {
		t.Error("roster person differs between platforms")
	}
	a, _ := w.PersonByMicroblog("jane_doe")
	b, _ := w.PersonByPronet("jane-doe")
	if a.FullName() != "Jane Doe" || a.Title != b.Title || a.Company.Slug != b.Company.Slug {
		t.Errorf("derived person differs: %+v vs %+v", a.FullName(), b.FullName())
	}
	if u, ok := decodeUserID(encodeUserID("jane_doe")); !ok || u != "jane_doe" {
		t.Errorf("user id round trip: %q", u)
	}
}

func TestStartServesAllProtocols(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := Start(ctx, "127.0.0.1:0", Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, u := range []string{srv.MicroblogURL() + "/2/users/by/username/alice", srv.PronetURL() + "/profile?username=alice",
		srv.EnrichURL() + "/v5/person/enrich?profile=linkedin.com/in/alice"} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		req.Header.Set("Authorization", "Bearer k")
		req.Header.Set("x-api-key", "k")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d", u, resp.StatusCode)
		}
	}
	if err := srv.Close(); err != nil {
		t.Error(err)
	}
}
