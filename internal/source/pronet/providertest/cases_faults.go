package providertest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/source/sourcetest"
)

// answer is what one call of an operation read.
type answer struct {
	posts    []pronet.Post
	comments []pronet.Comment
	reactors []pronet.Reactor
	profile  *pronet.Profile
}

// keys are the projections of what was read, comparable across providers.
func (a answer) keys() []string {
	out := keys(viewPosts(a.posts))
	out = append(out, keys(viewComments(a.comments))...)
	out = append(out, keys(viewReactors(a.reactors))...)
	if a.profile != nil {
		out = append(out, keys([]profileView{viewProfile(*a.profile)})...)
	}
	return out
}

func (a answer) len() int {
	n := len(a.posts) + len(a.comments) + len(a.reactors)
	if a.profile != nil {
		n++
	}
	return n
}

// op is one operation of a provider, asked about the fixture's identifier with a prefix.
type op struct {
	name   string
	single bool // answers one object rather than a list
	call   func(ctx context.Context, p pronet.Provider, prefix string) (answer, error)
}

func (s *suite) ops() []op {
	fx := s.fx
	return []op{
		{"profile_posts", false, func(ctx context.Context, p pronet.Provider, pre string) (answer, error) {
			posts, _, err := p.ProfilePosts(ctx, pronet.ProfilePostsParams{Username: pre + fx.user})
			return answer{posts: posts}, err
		}},
		{"company_posts", false, func(ctx context.Context, p pronet.Provider, pre string) (answer, error) {
			posts, err := p.CompanyPosts(ctx, pre+fx.company)
			return answer{posts: posts}, err
		}},
		{"post", true, func(ctx context.Context, p pronet.Provider, pre string) (answer, error) {
			post, err := p.Post(ctx, pre+fx.post)
			if err != nil {
				return answer{}, err
			}
			return answer{posts: []pronet.Post{post}}, nil
		}},
		{"comments", false, func(ctx context.Context, p pronet.Provider, pre string) (answer, error) {
			cp, err := p.Comments(ctx, pre+fx.post, 1, 0)
			return answer{comments: cp.Comments}, err
		}},
		{"reactions", false, func(ctx context.Context, p pronet.Provider, pre string) (answer, error) {
			rp, err := p.Reactions(ctx, pre+fx.post, 1, 0)
			return answer{reactors: rp.Items}, err
		}},
		{"search", false, func(ctx context.Context, p pronet.Provider, pre string) (answer, error) {
			sp, err := p.SearchPosts(ctx, pronet.SearchParams{Keywords: pre + fx.keyword, DatePosted: pronet.DatePastDay})
			return answer{posts: sp.Items}, err
		}},
		{"profile", true, func(ctx context.Context, p pronet.Provider, pre string) (answer, error) {
			prof, err := p.Profile(ctx, pre+fx.user)
			if err != nil {
				return answer{}, err
			}
			return answer{profile: &prof}, nil
		}},
	}
}

// faultCases put every operation through the sandbox's fault prefixes (internal/sandbox doc.go).
func (s *suite) faultCases(t *testing.T) {
	faults := []struct {
		prefix string
		check  func(t *testing.T, o op, a answer, err error, slept []time.Duration)
	}{
		{"missing-", func(t *testing.T, o op, a answer, err error, _ []time.Duration) {
			if o.name == "search" && err == nil && a.len() == 0 {
				return // a word no post has: vendors answer an empty search, not a 404
			}
			if slices.Contains(s.h.EmptyWhenMissing, o.name) && err == nil && a.len() == 0 {
				return // the vendor answers a missing target as one with nothing to list
			}
			if !errors.Is(err, source.ErrNotFound) {
				t.Errorf("want source.ErrNotFound, got %v", err)
			}
		}},
		{"error-", func(t *testing.T, _ op, _ answer, err error, slept []time.Duration) {
			if ue := asUpstream(t, err); ue.Status < 500 {
				t.Errorf("status %d, want the vendor's 5xx", ue.Status)
			}
			if len(slept) == 0 {
				t.Error("a 5xx was not retried through the injected sleep")
			}
		}},
		{"ratelimited-", func(t *testing.T, _ op, _ answer, err error, _ []time.Duration) {
			wantReset(t, err, Now().Add(2*time.Second))
		}},
		{"throttled-", func(t *testing.T, _ op, _ answer, err error, _ []time.Duration) {
			wantReset(t, err, Now().Add(source.DefaultRateLimitWait))
		}},
		{"malformed-", func(t *testing.T, o op, a answer, err error, _ []time.Duration) {
			if o.single {
				asUpstream(t, err)
				return
			}
			if err != nil {
				t.Fatalf("a list with one malformed item: %v, want the other items", err)
			}
			if a.len() == 0 {
				t.Fatal("a list with one malformed item: nothing, want the other items")
			}
			wellFormed(t, a)
			s.samePost(t, o, a)
		}},
		{"sparse-", func(t *testing.T, o op, a answer, err error, _ []time.Duration) {
			if err != nil {
				t.Fatalf("items without optional fields: %v", err)
			}
			if a.len() == 0 {
				t.Fatal("items without optional fields: nothing")
			}
			wellFormed(t, a)
			sparse(t, a)
			s.samePost(t, o, a)
		}},
	}
	for _, f := range faults {
		for _, o := range s.ops() {
			t.Run("faults/"+f.prefix[:len(f.prefix)-1]+"/"+o.name, func(t *testing.T) {
				p, sl := s.provider(Key)
				a, err := o.call(t.Context(), p, f.prefix)
				if s.lacks(o.name) {
					s.answered(t, o.name, err)
					return
				}
				f.check(t, o, a, err, sl.Durations())
			})
		}
	}
}

// samePost checks that a prefixed post id still names the fixture post ("sparse-<digits>" is
// that post): its comments and reactors are among the post's, the post is that post.
func (s *suite) samePost(t *testing.T, o op, a answer) {
	t.Helper()
	ctx := t.Context()
	var known []string
	switch o.name {
	case "post":
		for _, p := range a.posts {
			if p.URN != s.fx.post {
				t.Errorf("post %s, want %s", p.URN, s.fx.post)
			}
		}
		return
	case "comments":
		for page := 1; page <= maxPages; page++ {
			cp := oracle[pronet.CommentsPage](t)(s.oracle.Comments(ctx, s.fx.post, page, 100))
			for _, c := range cp.Comments {
				known = append(known, c.URN)
			}
			if len(cp.Comments) == 0 || page >= cp.TotalPage {
				break
			}
		}
		for _, c := range a.comments {
			if !slices.Contains(known, c.URN) {
				t.Errorf("comment %s is not one of post %s's", c.URN, s.fx.post)
			}
		}
	case "reactions":
		for page := 1; page <= maxPages; page++ {
			rp := oracle[pronet.ReactionsPage](t)(s.oracle.Reactions(ctx, s.fx.post, page, 100))
			for _, r := range rp.Items {
				known = append(known, r.Username)
			}
			if len(rp.Items) == 0 || page >= rp.TotalPage {
				break
			}
		}
		for _, r := range a.reactors {
			if !slices.Contains(known, r.Username) {
				t.Errorf("reactor %s is not one of post %s's", r.Username, s.fx.post)
			}
		}
	}
}

func wantReset(t *testing.T, err error, at time.Time) {
	t.Helper()
	var rl *source.RateLimitError
	if !errors.As(err, &rl) {
		t.Fatalf("want a *source.RateLimitError, got %T: %v", err, err)
	}
	if !rl.ResetAt.Equal(at) {
		t.Errorf("ResetAt %s, want %s", rl.ResetAt, at)
	}
}

// wellFormed fails t when an item lacks its identity.
func wellFormed(t *testing.T, a answer) {
	t.Helper()
	for _, p := range a.posts {
		if p.URN == "" || p.Author.Username == "" {
			t.Errorf("post without urn or author: %v", viewPost(p))
		}
	}
	for _, c := range a.comments {
		if c.URN == "" || c.Author.Username == "" && c.Author.Name == "" {
			t.Errorf("comment without urn or author: %+v", c)
		}
	}
	for _, r := range a.reactors {
		if r.Username == "" && r.URN == "" {
			t.Errorf("reactor without username: %+v", r)
		}
	}
	if a.profile != nil && a.profile.Username == "" {
		t.Errorf("profile without username: %+v", viewProfile(*a.profile))
	}
}

// sparse fails t when a field the vendor left out was filled with something.
func sparse(t *testing.T, a answer) {
	t.Helper()
	for _, p := range a.posts {
		if p.TotalReactionCount != 0 || p.CommentsCount != 0 || p.RepostsCount != 0 || p.Author.Headline != "" ||
			len(p.Author.ProfilePictures) != 0 || len(p.Image) != 0 || len(p.Article) != 0 {
			t.Errorf("sparse post %s has optional fields: %v", p.URN, viewPost(p))
		}
	}
	for _, c := range a.comments {
		counts := c.TotalSocialActivityCounts
		if counts.NumComments == len(c.Replies) {
			counts.NumComments = 0 // counted from the replies the answer carries, not an optional field
		}
		if counts != (pronet.ActivityCounts{}) || c.Author.Title != "" {
			t.Errorf("sparse comment %s has optional fields: %+v", c.URN, c)
		}
	}
	for _, r := range a.reactors {
		if r.Headline != "" || r.ProfilePicture != "" {
			t.Errorf("sparse reactor %s has optional fields: %+v", r.Username, r)
		}
	}
	if p := a.profile; p != nil && (p.Headline != "" || p.ProfilePicture != "" || p.FollowerCount != 0) {
		t.Errorf("sparse profile has optional fields: %+v", viewProfile(*p))
	}
}

// keyCases: a wrong key is a 401 on every operation, and Check tells a good key from a bad one.
func (s *suite) keyCases(t *testing.T) {
	for _, o := range s.ops() {
		t.Run("invalid_key/"+o.name, func(t *testing.T) {
			p, _ := s.provider(InvalidKey)
			_, err := o.call(t.Context(), p, "")
			if s.lacks(o.name) {
				s.answered(t, o.name, err)
				return
			}
			if ue := asUpstream(t, err); ue.Status != http.StatusUnauthorized {
				t.Errorf("status %d, want 401", ue.Status)
			}
		})
	}
	for _, c := range []struct{ name, key string }{{"check/invalid_key", InvalidKey}, {"check/empty_key", ""}} {
		key := c.key
		t.Run(c.name, func(t *testing.T) {
			p, _ := s.provider(key)
			err := p.Check(t.Context())
			if err == nil {
				t.Fatalf("Check with key %q: no error", key)
			}
			if ue := asUpstream(t, err); ue.Status != http.StatusUnauthorized {
				t.Errorf("Check with key %q: status %d, want 401", key, ue.Status)
			}
		})
	}
}

// slowCases put a proxy in front of the upstream that holds requests until the client gives up.
func (s *suite) slowCases(t *testing.T) {
	var o op
	for _, c := range s.ops() {
		if c.name == "profile" || c.name == "post" || c.name == "profile_posts" {
			if !s.lacks(c.name) {
				o = c
				break
			}
		}
	}
	if o.call == nil {
		return
	}
	const timeout = 200 * time.Millisecond
	t.Run("slow/timeout", func(t *testing.T) {
		base := s.holdingProxy(t, -1)
		sl := &sourcetest.Sleeper{}
		p := s.h.New(base, Key, &http.Client{Timeout: timeout}, Now, sl.Sleep)
		start := time.Now()
		_, err := o.call(t.Context(), p, "")
		if ue := asUpstream(t, err); ue.Status != 0 {
			t.Errorf("%s with no answer: status %d, want 0", o.name, ue.Status)
		}
		if len(sl.Durations()) == 0 {
			t.Error("a timeout was not retried through the injected sleep")
		}
		if d := time.Since(start); d > 10*timeout {
			t.Errorf("gave up after %s with a %s client timeout", d, timeout)
		}
	})
	t.Run("slow/recovers", func(t *testing.T) {
		base := s.holdingProxy(t, 1)
		sl := &sourcetest.Sleeper{}
		p := s.h.New(base, Key, &http.Client{Timeout: timeout}, Now, sl.Sleep)
		got, err := o.call(t.Context(), p, "")
		if err != nil {
			t.Fatalf("%s after one slow answer: %v", o.name, err)
		}
		// The first page: vendors' pages may be smaller than the contract's, never larger.
		want := oracle[answer](t)(o.call(t.Context(), s.oracle, "")).keys()
		sameList(t, o.name, got.keys(), want[:min(len(want), len(got.keys()))])
		if len(sl.Durations()) == 0 {
			t.Error("the retry after a timeout did not wait through the injected sleep")
		}
	})
}

// holdingProxy serves the upstream through a proxy that holds the first n requests (all when
// n < 0) until their client goes away; it returns the upstream's base URL through the proxy.
func (s *suite) holdingProxy(t *testing.T, n int32) string {
	t.Helper()
	up, err := url.Parse(s.upstream)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: up.Scheme, Host: up.Host})
	var held atomic.Int32
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n < 0 || held.Add(1) <= n {
			// The server notices a client hanging up only once the body is read (a POST's).
			_, _ = io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-stop:
			}
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		close(stop)
		srv.Close()
	})
	return srv.URL + up.Path
}

// costCases: with a source.Meter in the context, a priced provider adds what each call cost.
func (s *suite) costCases(t *testing.T) {
	for _, o := range s.ops() {
		t.Run("cost/"+o.name, func(t *testing.T) {
			p, _ := s.provider(Key)
			m := &source.Meter{}
			_, err := o.call(source.WithMeter(t.Context(), m), p, "")
			if !s.answered(t, o.name, err) {
				return
			}
			switch {
			case s.h.Priced && (m.Calls() == 0 || m.Total() <= 0):
				t.Errorf("a priced provider's %s added %s USD in %d calls, want a positive cost", o.name, m.Total().USD(), m.Calls())
			case !s.h.Priced && m.Total() != 0:
				t.Errorf("an unpriced provider's %s added %s USD", o.name, m.Total().USD())
			}
		})
	}
}
