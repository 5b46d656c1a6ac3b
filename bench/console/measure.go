package main

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/bench/internal/benchkit"
	"github.com/trawlhq/trawl/bench/seed"
	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/console"
	"github.com/trawlhq/trawl/internal/httpapi"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/store"
)

// serve starts the console and the API over st on a loopback port, wired
// as the binary wires them (internal/app): the API's handler serves the
// console at every path that is not the API's. Rate limits are off: a
// benchmark is one key asking thousands of pages a minute.
func serve(st *store.Store) (string, func(), error) {
	cfg, err := config.Default()
	if err != nil {
		return "", nil, err
	}
	cfg.Addr, cfg.DataDir, cfg.DatabaseURL = "127.0.0.1:0", os.TempDir(), "unused"
	cfg.RateLimitStarter, cfg.RateLimitEnterprise, cfg.RateLimitCustom = 1<<30, 1<<30, 1<<30
	// Logs are encoded as in production, then dropped.
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	web := console.New(console.Deps{Config: cfg, Store: st, Log: log, Now: time.Now})
	api := httpapi.New(httpapi.Deps{Config: cfg, Store: st, Log: log, Now: time.Now, Console: web})
	web.API, web.AsPrincipal = api, httpapi.WithPrincipal
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}
	return "http://" + ln.Addr().String(), stop, nil
}

// browser is a signed-in console client: its jar holds the session cookie.
type browser struct {
	http *http.Client
	base string
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// signIn signs in with the key as a person does: the sign-in form (its
// CSRF token and cookie), then its POST, which sets the session cookie.
func signIn(ctx context.Context, base, secret string) (*browser, error) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	b := &browser{base: base, http: &http.Client{Jar: jar, Timeout: time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	form, _, status, err := b.get(ctx, "/signin")
	if err != nil {
		return nil, err
	}
	m := csrfField.FindStringSubmatch(form)
	if status != http.StatusOK || m == nil {
		return nil, fmt.Errorf("sign-in form: status %d, no csrf field", status)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/signin",
		strings.NewReader(url.Values{"csrf": {html.UnescapeString(m[1])}, "key": {secret}}.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := b.http.Do(req)
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		return nil, fmt.Errorf("sign-in: status %d, to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	return b, nil
}

// get asks for a page and reads all of it; took is from before the request
// to after its last byte.
func (b *browser) get(ctx context.Context, path string) (string, time.Duration, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.base+path, nil)
	if err != nil {
		return "", 0, 0, err
	}
	start := time.Now()
	resp, err := b.http.Do(req)
	if err != nil {
		return "", 0, 0, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	return string(body), took, resp.StatusCode, err
}

var (
	nextLink = regexp.MustCompile(`<a rel="next" href="([^"]+)"`)
	rowCell  = regexp.MustCompile(`<td class="author">`)
	totalTag = regexp.MustCompile(`<span id="results-total">([0-9]+)</span>`)
)

// page is what a results page says: its rows, the total it shows and the
// link to the next page ("" on the last).
type page struct {
	rows  int
	total int64
	next  string
}

// tablePage asks for a results page and checks that it is one.
func (b *browser) tablePage(ctx context.Context, path string) (page, time.Duration, error) {
	body, took, status, err := b.get(ctx, path)
	if err != nil {
		return page{}, 0, err
	}
	if status != http.StatusOK {
		return page{}, 0, fmt.Errorf("GET %s: status %d: %.300s", path, status, body)
	}
	p := page{rows: len(rowCell.FindAllStringIndex(body, -1))}
	if m := nextLink.FindStringSubmatch(body); m != nil {
		p.next = html.UnescapeString(m[1])
	}
	if m := totalTag.FindStringSubmatch(body); m != nil {
		p.total, _ = strconv.ParseInt(m[1], 10, 64)
	}
	return p, took, nil
}

// perPage is the console's results page size.
const perPage = 50

// measure runs every scenario and returns their latencies.
func measure(ctx context.Context, b *browser, st *store.Store, sr search.Search, o options, out io.Writer) ([]benchkit.Result, error) {
	first := "/searches/" + sr.ID
	var results []benchkit.Result

	// The first page, as one opens the search.
	firstPage, _, err := b.tablePage(ctx, first)
	if err != nil {
		return nil, err
	}
	if firstPage.rows != min(perPage, o.rows) || firstPage.total != int64(o.rows) {
		return nil, fmt.Errorf("first page: %d rows, total %d; want %d rows, total %d", firstPage.rows, firstPage.total, min(perPage, o.rows), o.rows)
	}
	r, err := repeat(ctx, b, "first page", first, o, firstPage.rows)
	if err != nil {
		return nil, err
	}
	results = append(results, r)

	// Pages 1..pages, each reached by its predecessor's rel=next link.
	walk := benchkit.Result{Name: fmt.Sprintf("pages 1-%d by rel=next", o.pages)}
	path := first
	for i := 0; i < o.pages && path != ""; i++ {
		p, took, err := b.tablePage(ctx, path)
		if err != nil {
			return nil, err
		}
		if p.rows != perPage && p.next != "" {
			return nil, fmt.Errorf("page %d: %d rows", i+1, p.rows)
		}
		walk.Latencies = append(walk.Latencies, took)
		path = p.next
	}
	results = append(results, walk)

	// Far pages: a cursor after 10%..99.99% of the results, each asked
	// for repeatedly (a bookmark of a deep page, or the next link there).
	var far []string
	for _, skip := range []int{o.rows / 10, o.rows / 2, o.rows * 9 / 10, o.rows - perPage} {
		if skip < 1 {
			continue
		}
		cursor, err := seed.ResultCursorAfter(ctx, st, sr.ID, skip)
		if err != nil {
			return nil, err
		}
		far = append(far, first+"?cursor="+url.QueryEscape(cursor))
	}
	if len(far) > 0 {
		r := benchkit.Result{Name: "far pages (after 10%, 50%, 90%, last)"}
		for _, path := range far {
			one, err := repeat(ctx, b, "", path, options{requests: max(o.requests/len(far), 1), warmup: o.warmup / len(far)}, -1)
			if err != nil {
				return nil, err
			}
			r.Latencies = append(r.Latencies, one.Latencies...)
		}
		results = append(results, r)
	}

	// The filtered table, when the page offers author filters.
	if o.filter == "" {
		return results, nil
	}
	name, value, _ := strings.Cut(o.filter, "=")
	// A filtered page may be slow: a short warm-up (at least the call that counts).
	o.warmup = max(min(o.warmup, 2), 1)
	body, _, _, err := b.get(ctx, first)
	if err != nil {
		return nil, err
	}
	if strings.Contains(body, `name="`+name+`"`) {
		// Pages 1-20 first: page 1 is the first count of this filter in the process.
		filtered := first + "?" + o.filter
		walk = benchkit.Result{Name: "filtered " + o.filter + ", pages 1-20 by rel=next (page 1 counts)"}
		began := time.Now()
		var total int64
		for path, i := filtered, 0; i < 20 && path != "" && !overBudget(began, i, 0); i++ {
			p, took, err := b.tablePage(ctx, path)
			if err != nil {
				return nil, err
			}
			if i == 0 {
				total = p.total
			}
			walk.Latencies = append(walk.Latencies, took)
			path = p.next
		}
		fmt.Fprintf(out, "filtered table (%s): %d of %d results\n", o.filter, total, o.rows)
		r, err = repeat(ctx, b, "filtered "+o.filter+", first page again", filtered, o, -1)
		if err != nil {
			return nil, err
		}
		results = append(results, walk, r)
	} else {
		fmt.Fprintf(out, "the results page has no %q filter yet: no filtered page timed\n", name)
	}
	// What the filtered table costs the store, whether the page asks for it yet or not.
	stored, err := filteredStore(ctx, st, sr, name, value, o)
	if err != nil {
		return nil, err
	}
	return append(results, stored...), nil
}

// budget bounds a scenario whose pages are slow: past it, a scenario
// stops once it has timed minCalls requests.
const (
	budget   = time.Minute
	minCalls = 5
)

func overBudget(began time.Time, i, warmup int) bool {
	return time.Since(began) > budget && i >= warmup+minCalls
}

// repeat asks for one page warmup+requests times and keeps the last
// requests' latencies; rows, unless negative, is how many rows each answer
// must have.
func repeat(ctx context.Context, b *browser, name, path string, o options, rows int) (benchkit.Result, error) {
	r := benchkit.Result{Name: name}
	began := time.Now()
	for i := range o.warmup + o.requests {
		if overBudget(began, i, o.warmup) {
			break
		}
		p, took, err := b.tablePage(ctx, path)
		if err != nil {
			return r, err
		}
		if rows >= 0 && p.rows != rows {
			return r, fmt.Errorf("%s: %d rows, want %d", path, p.rows, rows)
		}
		if p.rows == 0 {
			return r, errors.New(path + ": an empty page")
		}
		if i >= o.warmup {
			r.Latencies = append(r.Latencies, took)
		}
	}
	return r, nil
}

// filteredStore times the store's read of the filtered table's first page
// (store.FilteredResults, which the console's results page calls): each
// call with a filter not counted before (the value in another case: the
// same results, a total the store has not kept), then the same filter
// again and again (its total kept until the search collects more).
func filteredStore(ctx context.Context, st *store.Store, sr search.Search, name, value string, o options) ([]benchkit.Result, error) {
	filter := func(value string) (store.AuthorFilter, error) {
		var f store.AuthorFilter
		switch name {
		case "job_title":
			f.JobTitle = value
		case "company":
			f.Company = value
		case "industry":
			f.Industry = value
		case "country":
			f.Country = value
		case "seniority":
			f.Seniority = value
		default:
			return f, fmt.Errorf("-filter %s: want job_title, company, industry, country or seniority", name)
		}
		return f, nil
	}
	cold := benchkit.Result{Name: "store: filtered " + name + "=" + value + ", first page, a new filter each call"}
	warm := benchkit.Result{Name: "store: the same, the same filter again"}
	variants := 1 << min(len(value), 20)
	// Case variants 1.. in turn (0, the value as given, is the warm one's).
	calls := []int{min(o.requests, variants-1), o.warmup + o.requests}
	for i, r := range []*benchkit.Result{&cold, &warm} {
		began := time.Now()
		for n := range calls[i] {
			if overBudget(began, n, 0) {
				break
			}
			v := value
			if i == 0 {
				v = caseVariant(value, n+1)
			}
			f, err := filter(v)
			if err != nil {
				return nil, err
			}
			start := time.Now()
			p, err := st.FilteredResults(ctx, sr, store.ResultQuery{Author: f}, perPage, "")
			took := time.Since(start)
			if err != nil {
				return nil, err
			}
			if len(p.Items) == 0 {
				return nil, errors.New("the filter keeps no result")
			}
			if i == 0 || n >= o.warmup {
				r.Latencies = append(r.Latencies, took)
			}
		}
	}
	return []benchkit.Result{cold, warm}, nil
}

// caseVariant is s with the letters whose bit is set in mask upper-cased.
func caseVariant(s string, mask int) string {
	b := []byte(s)
	for i := range b {
		if mask&(1<<i) != 0 && b[i] >= 'a' && b[i] <= 'z' {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
}
