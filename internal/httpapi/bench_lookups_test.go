package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/store/storetest"
)

// BenchmarkLookupOverhead measures what the service adds to a live lookup: in one run it times,
// alternately, a direct connector call to the sandbox and the same lookup through the API over
// loopback HTTP (authentication, rate limit, validation, the credit spend and JSON
// re-encoding included), and reports p50 and p95 of both and their difference.
//
//	go test ./internal/httpapi -run '^$' -bench LookupOverhead -benchtime 400x
func BenchmarkLookupOverhead(b *testing.B) {
	cases := []struct {
		name, path string
		// prepare returns the API body and the direct connector call of the same lookup.
		prepare func(ctx context.Context, r *lookupRig) (string, func() error)
	}{
		{"profile_posts", "/v1/profile/posts", func(ctx context.Context, r *lookupRig) (string, func() error) {
			return `{"profileUrl": "https://www.linkedin.com/in/jane-doe"}`, func() error {
				_, _, err := r.pronet.ProfilePosts(ctx, pronet.ProfilePostsParams{Username: "jane-doe"})
				return err
			}
		}},
		{"company_posts", "/v1/company/posts", func(ctx context.Context, r *lookupRig) (string, func() error) {
			return `{"companyUrl": "https://www.linkedin.com/company/acme"}`, func() error {
				_, err := r.pronet.CompanyPosts(ctx, "acme")
				return err
			}
		}},
		{"company_comments", "/v1/company/comments", func(ctx context.Context, r *lookupRig) (string, func() error) {
			urn := commentedPost(ctx, b, r)
			return `{"postUrn": "` + urn + `"}`, func() error {
				_, err := r.pronet.Comments(ctx, urn, 1, 0)
				return err
			}
		}},
		{"profile_enrich", "/v1/profile/enrich", func(ctx context.Context, r *lookupRig) (string, func() error) {
			return `{"profileUrl": "https://www.linkedin.com/in/jane-doe"}`, func() error {
				// The service asks both upstreams at once; so does the direct call.
				var wg sync.WaitGroup
				var e1, e2 error
				wg.Go(func() { _, e1 = r.enrich.PersonByProfile(ctx, "https://www.linkedin.com/in/jane-doe") })
				wg.Go(func() { _, e2 = r.pronet.Profile(ctx, "jane-doe") })
				wg.Wait()
				if e1 != nil {
					return e1
				}
				return e2
			}
		}},
	}
	for _, engine := range storetest.Engines() {
		for _, c := range cases {
			b.Run(string(engine)+"/"+c.name, func(b *testing.B) {
				rig := newLookupRig(b, engine)
				api := httptest.NewServer(rig.server)
				b.Cleanup(api.Close)
				hc := &http.Client{Timeout: 10 * time.Second}
				ctx := context.Background()
				body, call := c.prepare(ctx, rig)
				viaAPI := func() error {
					req, err := http.NewRequestWithContext(ctx, http.MethodPost, api.URL+c.path, bytes.NewReader([]byte(body)))
					if err != nil {
						return err
					}
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("x-api-key", rig.key)
					resp, err := hc.Do(req)
					if err != nil {
						return err
					}
					defer resp.Body.Close()
					if _, err := io.Copy(io.Discard, resp.Body); err != nil {
						return err
					}
					if resp.StatusCode != http.StatusOK {
						return fmt.Errorf("status %d", resp.StatusCode)
					}
					return nil
				}
				// Warm both paths (connections, caches) before timing.
				for range 5 {
					if err := call(); err != nil {
						b.Fatal(err)
					}
					if err := viaAPI(); err != nil {
						b.Fatal(err)
					}
				}
				var direct, through []time.Duration
				b.ResetTimer()
				for b.Loop() {
					start := time.Now()
					if err := call(); err != nil {
						b.Fatal(err)
					}
					mid := time.Now()
					if err := viaAPI(); err != nil {
						b.Fatal(err)
					}
					direct, through = append(direct, mid.Sub(start)), append(through, time.Since(mid))
				}
				d50, d95 := percentiles(direct)
				a50, a95 := percentiles(through)
				b.ReportMetric(ms(d50), "direct-p50-ms")
				b.ReportMetric(ms(d95), "direct-p95-ms")
				b.ReportMetric(ms(a50), "api-p50-ms")
				b.ReportMetric(ms(a95), "api-p95-ms")
				b.ReportMetric(ms(a50-d50), "overhead-p50-ms")
				b.ReportMetric(ms(a95-d95), "overhead-p95-ms")
			})
		}
	}
}

// commentedPost finds a sandbox post that has comments.
func commentedPost(ctx context.Context, b *testing.B, r *lookupRig) string {
	posts, _, err := r.pronet.ProfilePosts(ctx, pronet.ProfilePostsParams{Username: "jane-doe"})
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range posts {
		if p.CommentsCount > 0 {
			return p.URN
		}
	}
	b.Fatal("no post of jane-doe has comments")
	return ""
}

func percentiles(ds []time.Duration) (p50, p95 time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)*50/100], s[min((len(s)*95+99)/100, len(s))-1]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
