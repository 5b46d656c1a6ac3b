package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
)

// AuthorFilter keeps the results whose author, and the topic engagers who,
// match every filter given; an empty field filters nothing.
//
// A pronet member is matched on the profile topics collected (pronet_people):
// JobTitle and Company are case-insensitive substrings of the current title
// (the headline until the profile is read) and company, Industry is the
// whole industry and Country the ISO code, as social mapping compares them.
// A pronet author whose profile was never collected matches no filter. A
// microblog author has only what their profile says: JobTitle, Company and
// Industry are case-insensitive substrings of the bio (description), and
// Country is the country their free-text location names.
type AuthorFilter struct {
	JobTitle string
	Company  string
	Industry string
	Country  string // ISO 3166-1 alpha-2, upper case
	// Seniority is a level of mapping.SeniorityLevels: the level the
	// title states (mapping.Seniority), the pronet member's current title
	// or the microblog author's bio. Decided in Go only.
	Seniority string
}

// Empty reports whether the filter lets every author through.
func (f AuthorFilter) Empty() bool { return f == AuthorFilter{} }

// MatchPerson reports whether a collected pronet member passes the filter.
// The rules are social mapping's (mapping.Filters.Match), plus company.
func (f AuthorFilter) MatchPerson(p Person) bool {
	var mf mapping.Filters
	if f.JobTitle != "" {
		mf.JobTitles = []string{f.JobTitle}
	}
	if f.Industry != "" {
		mf.Industries = []string{f.Industry}
	}
	if f.Country != "" {
		mf.Countries = []string{f.Country}
	}
	title := p.JobTitle
	if title == "" {
		title = p.Headline
	}
	if !mf.Match(mapping.Person{JobTitle: title, Industry: p.Industry, Country: p.Country}) {
		return false
	}
	if f.Seniority != "" && mapping.Seniority(title) != f.Seniority {
		return false
	}
	return f.Company == "" || containsFold(p.Company, f.Company)
}

// MatchProfile reports whether a microblog author, known by their bio and
// location, passes the filter.
func (f AuthorFilter) MatchProfile(description, location string) bool {
	for _, want := range []string{f.JobTitle, f.Company, f.Industry} {
		if want != "" && !containsFold(description, want) {
			return false
		}
	}
	if f.Seniority != "" && mapping.Seniority(description) != f.Seniority {
		return false
	}
	return f.Country == "" || LocationCountry(location) == f.Country
}

// match decides a result by its source: pronet authors by their collected
// profile (nil when none), everyone else by their own profile's words.
func (f AuthorFilter) match(src string, person *Person, description, location string) bool {
	if src == pronetSource {
		return person != nil && f.MatchPerson(*person)
	}
	return f.MatchProfile(description, location)
}

func containsFold(s, sub string) bool {
	return s != "" && strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// LocationCountry is the ISO code of the country a free-text location
// names ("Berlin, Germany", "USA"): its last comma-separated part, read as
// social mapping reads countries; "" when it names none. A bare two-letter
// code is not read as a country ("Austin, TX", "Toronto, ON", and CA or DE
// are US states as often as countries), but names such as "UK" are.
func LocationCountry(location string) string {
	last := location
	if i := strings.LastIndexByte(location, ','); i >= 0 {
		last = location[i+1:]
	}
	last = strings.Trim(last, " \t.")
	code, ok := mapping.CountryCode(last)
	if !ok || strings.EqualFold(last, code) {
		return ""
	}
	return code
}

// pronetSource is the source of pronet search results.
const pronetSource = "pronet"

// ResultQuery selects a search's results: published at or after From (when
// not zero), written by an author who passes Author.
type ResultQuery struct {
	From   time.Time
	Author AuthorFilter
}

// resultKey is a position in a search's results, newest first.
type resultKey struct {
	at int64
	id string
}

// filterBatch is how many rows a filtered page reads per statement: the
// filter is decided in Go, so a page may need several.
const filterBatch = 500

// FilteredResults is Results narrowed by q: a page of the results that pass
// it, newest first, after cursor, and how many pass in all (exact: every
// candidate author profile is decided, see countResults). Without author
// filters it is Results.
func (s *Store) FilteredResults(ctx context.Context, sr search.Search, q ResultQuery, limit int, cursor string) (ResultPage, error) {
	if q.Author.Empty() {
		return s.Results(ctx, sr, limit, cursor, q.From)
	}
	var after *resultKey
	if cursor != "" {
		at, id, err := decodeCursor(cursor)
		if err != nil {
			return ResultPage{}, err
		}
		after = &resultKey{at, id}
	}
	// Counted first (over author profiles, a few rows each): no page holds
	// more than the total, so a page stops reading once it has them all,
	// and a filter that keeps nothing reads no result.
	total, err := s.countResults(ctx, sr, q)
	if err != nil {
		return ResultPage{}, fmt.Errorf("store: count results of %s: %w", sr.ID, err)
	}
	page := ResultPage{TotalCount: total}
	// SQL keeps mostly matches: the first batch is the page and one more
	// (500 rows, most of them unused, read 3,500 results a page); the
	// batches double when Go decides many rows (values that are not ASCII).
	for batch := limit + 1; int64(len(page.Items)) < total; batch = min(2*batch, filterBatch) {
		rows, last, err := s.resultBatch(ctx, sr, q, after, batch)
		if err != nil {
			return ResultPage{}, fmt.Errorf("store: results of %s: %w", sr.ID, err)
		}
		for _, r := range rows {
			if len(page.Items) == limit {
				// One more match: there is a next page, after the last item kept.
				prev := page.Items[limit-1]
				page.NextCursor = encodeCursor(ms(prev.PublishedAt), prev.ID)
				break
			}
			page.Items = append(page.Items, r.Item)
		}
		if page.NextCursor != "" || last == nil {
			break
		}
		after = last
	}
	return page, nil
}

// ResultRow is a result as an export writes it: the item and, for a pronet
// author whose profile topics collected, that profile.
type ResultRow struct {
	Item   source.Item
	Author *Person
}

// ResultExport reads every result that passes a query, newest first, one
// batch per statement, so an export of any size holds one batch in memory
// and no statement (or SQLite read snapshot) stays open between batches.
type ResultExport struct {
	s     *Store
	sr    search.Search
	q     ResultQuery
	batch int
	after *resultKey
	done  bool
}

// ExportResults starts an export of the results that pass q, read batch rows
// at a time.
func (s *Store) ExportResults(sr search.Search, q ResultQuery, batch int) *ResultExport {
	return &ResultExport{s: s, sr: sr, q: q, batch: max(batch, 1)}
}

// Next returns the next results that pass the query; none when the export
// is done. Rows added meanwhile are read if they sort after what was read.
func (e *ResultExport) Next(ctx context.Context) ([]ResultRow, error) {
	for !e.done {
		rows, last, err := e.s.resultBatch(ctx, e.sr, e.q, e.after, e.batch)
		if err != nil {
			return nil, fmt.Errorf("store: export results of %s: %w", e.sr.ID, err)
		}
		e.after, e.done = last, last == nil
		if len(rows) > 0 {
			return rows, nil
		}
	}
	return nil, nil
}

// resultBatch reads up to limit results after `after` (from the newest when
// nil) that pass q's SQL conditions and returns those that pass q, with the
// key of the last row read: nil when the read reached the end.
func (s *Store) resultBatch(ctx context.Context, sr search.Search, q ResultQuery, after *resultKey, limit int) ([]ResultRow, *resultKey, error) {
	from, where, args := s.resultSource(sr, q)
	if after != nil {
		args = append(args, after.at, after.id)
		// A row-value comparison, so that PostgreSQL reads an index range (see Results).
		where += fmt.Sprintf(` AND (r.published_at, r.post_id) < ($%d, $%d)`, len(args)-1, len(args))
	}
	args = append(args, limit)
	rows, err := s.read.QueryContext(ctx,
		`SELECT r.published_at, r.post_id, r.item, `+s.resultAuthorColumns(sr, s.itemAuthor())+` FROM `+from+` WHERE `+where+
			fmt.Sprintf(` ORDER BY r.published_at DESC, r.post_id DESC LIMIT $%d`, len(args)), args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var (
		out  []ResultRow
		last resultKey
		n    int
	)
	for rows.Next() {
		var (
			raw []byte
			a   resultAuthor
		)
		if err := rows.Scan(append([]any{&last.at, &last.id, &raw}, a.dest()...)...); err != nil {
			return nil, nil, err
		}
		n++
		if !q.Author.Empty() && !q.Author.match(a.src, a.person(), a.description, a.location) {
			continue
		}
		var it source.Item
		if err := json.Unmarshal(raw, &it); err != nil {
			return nil, nil, fmt.Errorf("decode result %s: %w", last.id, err)
		}
		out = append(out, ResultRow{Item: it, Author: a.person()})
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if n < limit {
		return out, nil, nil
	}
	return out, &last, nil
}

// countResults counts the results that pass q, deciding each author
// profile once with its count of results (search_result_authors): the
// filter reads nothing else of a result. Only a count from a date on
// (q.From) reads every candidate result.
func (s *Store) countResults(ctx context.Context, sr search.Search, q ResultQuery) (int64, error) {
	f, weight := profileAuthor(), "r.results"
	if !q.From.IsZero() {
		f, weight = s.itemAuthor(), "1"
	}
	// The memo's key is the search's total as stored now (sr may be older).
	memo := q.From.IsZero() && !withPeople(sr)
	key := countKey{searchID: sr.ID, filter: q.Author}
	if memo {
		if err := s.read.QueryRowContext(ctx, `SELECT total_results FROM searches WHERE id = $1`, sr.ID).Scan(&key.total); err != nil {
			return 0, err
		}
		if n, ok := s.resultCounts.get(key); ok {
			return n, nil
		}
	}
	from, where, args := s.resultSourceOf(sr, q, f)
	rows, err := s.read.QueryContext(ctx, `SELECT `+weight+`, `+s.resultAuthorColumns(sr, f)+` FROM `+from+` WHERE `+where, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int64
	for rows.Next() {
		var (
			a resultAuthor
			w int64
		)
		if err := rows.Scan(append([]any{&w}, a.dest()...)...); err != nil {
			return 0, err
		}
		if q.Author.match(a.src, a.person(), a.description, a.location) {
			n += w
		}
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if memo {
		s.resultCounts.put(key, n)
	}
	return n, nil
}

// authorColumns are where a read finds what an author filter needs: in
// each result's item (r is search_results), or in the author profiles with
// their counts (r is search_result_authors).
type authorColumns struct {
	table, src, username, description, location string
}

// itemAuthor reads the author of each result from its item.
func (s *Store) itemAuthor() authorColumns {
	return authorColumns{table: "search_results", src: s.itemField("source"), username: s.itemField("author", "username"),
		description: s.itemField("author", "description"), location: s.itemField("author", "location")}
}

// profileAuthor reads the author profiles of a search's results, one row
// per profile with its count.
func profileAuthor() authorColumns {
	return authorColumns{table: "search_result_authors", src: "r.source", username: "r.username",
		description: "r.description", location: "r.location"}
}

// resultAuthor is what a filtered read selects of a result's author.
type resultAuthor struct {
	src, description, location string
	urn                        sql.NullString
	p                          Person
}

func (a *resultAuthor) dest() []any {
	return []any{&a.src, &a.description, &a.location, &a.urn,
		&a.p.JobTitle, &a.p.Headline, &a.p.Company, &a.p.Industry, &a.p.Country}
}

// person is the collected profile of a pronet author; nil when none.
func (a *resultAuthor) person() *Person {
	if !a.urn.Valid {
		return nil
	}
	p := a.p
	p.URN = a.urn.String
	return &p
}

// resultAuthorColumns are the columns resultAuthor scans.
func (s *Store) resultAuthorColumns(sr search.Search, f authorColumns) string {
	profile := `p.urn, COALESCE(p.job_title, ''), COALESCE(p.headline, ''), COALESCE(p.company, ''), COALESCE(p.industry, ''), COALESCE(p.country, '')`
	if !withPeople(sr) {
		profile = `CAST(NULL AS TEXT), '', '', '', '', ''`
	}
	return f.src + `, ` + f.description + `, ` + f.location + `, ` + profile
}

// withPeople reports whether a search's results may have pronet authors
// (whose collected profiles a read joins); microblog searches have none.
func withPeople(sr search.Search) bool { return !strings.HasPrefix(string(sr.Kind), "microblog-") }

// itemField is a text member of a stored result item, empty when absent.
func (s *Store) itemField(path ...string) string {
	if s.dialect == Postgres {
		expr := "r.item"
		for i, p := range path {
			op := "->"
			if i == len(path)-1 {
				op = "->>"
			}
			expr += op + "'" + p + "'"
		}
		return "COALESCE(" + expr + ", '')"
	}
	return "COALESCE(json_extract(r.item, '$." + strings.Join(path, ".") + "'), '')"
}

// resultSource is the FROM clause (results r, and their pronet authors'
// profiles p, NULL when none, unless the search has none) and the WHERE clause of a filtered read with
// its arguments: the search, From, and SQL conditions that keep every
// result q keeps and drop most of the others (Go decides the rest, see
// textTests). Microblog searches have no pronet authors to look up.
func (s *Store) resultSource(sr search.Search, q ResultQuery) (from, where string, args []any) {
	return s.resultSourceOf(sr, q, s.itemAuthor())
}

// resultSourceOf is resultSource over f's table; From applies to results only.
func (s *Store) resultSourceOf(sr search.Search, q ResultQuery, f authorColumns) (from, where string, args []any) {
	args = []any{sr.ID}
	where = `r.search_id = $1`
	if !q.From.IsZero() {
		args = append(args, ms(q.From))
		where += fmt.Sprintf(` AND r.published_at >= $%d`, len(args))
	}
	src := f.src
	from = f.table + ` r`
	if withPeople(sr) {
		// One profile per author: the most recently read of those with the
		// username (an unread one adds nothing to the item; migration 00017).
		from = f.table + ` r LEFT JOIN pronet_people p ON ` + src + ` = '` + pronetSource + `' AND p.urn = (
			SELECT u.urn FROM pronet_people u WHERE u.username = ` + f.username + ` AND u.username <> ''
			   AND u.profile_fetched_at IS NOT NULL
			 ORDER BY u.profile_fetched_at DESC, u.urn LIMIT 1)`
	}
	if q.Author.Empty() {
		return from, where, args
	}
	t := textTests{s: s, args: args}
	profile := t.profileConds(q.Author, f.description, f.location)
	cond := `(` + src + ` <> '` + pronetSource + `' AND ` + profile + `)`
	if withPeople(sr) {
		cond = `(` + cond + ` OR (` + src + ` = '` + pronetSource + `' AND ` + t.personConds(q.Author) + `))`
	}
	return from, where + ` AND ` + cond, t.args
}

// textTests writes SQL conditions that keep every row AuthorFilter keeps:
// each is decided in SQL only where SQL decides it exactly as Go does, on
// ASCII values and ASCII filter values (ASCII case folding is the same
// everywhere; SQLite's lower() folds ASCII only and PostgreSQL's depends on
// the collation, so PostgreSQL folds in the "C" collation, which folds
// ASCII only: translate() did the same 18 times slower, 0.7 s over 20,000
// author profiles). A row whose value is
// not ASCII passes and Go decides, as for social mapping's filters.
type textTests struct {
	s    *Store
	args []any
}

func (t *textTests) arg(v string) string {
	t.args = append(t.args, v)
	if t.s.dialect == Postgres {
		return fmt.Sprintf("$%d::text", len(t.args))
	}
	return fmt.Sprintf("$%d", len(t.args))
}

func (t *textTests) ascii(col string) string {
	if t.s.dialect == Postgres {
		return "octet_length(" + col + ") = char_length(" + col + ")"
	}
	return "length(CAST(" + col + " AS BLOB)) = length(" + col + ")"
}

func (t *textTests) fold(col string) string {
	if t.s.dialect == Postgres {
		return "lower(" + col + ` COLLATE "C")`
	}
	return "lower(" + col + ")"
}

// contains keeps rows whose col may contain want, case-insensitively.
func (t *textTests) contains(col, want string) string {
	w := strings.ToLower(want)
	if !isASCII(w) {
		return "1 = 1" // Go decides
	}
	find := "instr"
	if t.s.dialect == Postgres {
		find = "strpos"
	}
	test := find + "(" + t.fold(col) + ", " + t.arg(w) + ") > 0"
	return "(NOT (" + t.ascii(col) + ") OR " + test + ")"
}

// equal keeps rows whose col may equal want, case-insensitively.
func (t *textTests) equal(col, want string) string {
	w := strings.ToLower(want)
	if !isASCII(w) {
		return "1 = 1" // Go decides (EqualFold folds some non-ASCII letters to ASCII ones)
	}
	return "(NOT (" + t.ascii(col) + ") OR " + t.fold(col) + " = " + t.arg(w) + ")"
}

// personConds are the conditions on a collected profile p (MatchPerson).
func (t *textTests) personConds(f AuthorFilter) string {
	conds := []string{"p.urn IS NOT NULL"}
	title := "(CASE WHEN COALESCE(p.job_title, '') = '' THEN COALESCE(p.headline, '') ELSE p.job_title END)"
	if f.JobTitle != "" {
		conds = append(conds, t.contains(title, f.JobTitle))
	}
	if f.Company != "" {
		conds = append(conds, t.contains("COALESCE(p.company, '')", f.Company))
	}
	if f.Industry != "" {
		conds = append(conds, t.equal("COALESCE(p.industry, '')", f.Industry))
	}
	if f.Country != "" {
		conds = append(conds, t.equal("COALESCE(p.country, '')", f.Country))
	}
	return strings.Join(conds, " AND ")
}

// profileConds are the conditions on a microblog author's bio and location
// (MatchProfile). Which country a location names is decided in Go.
func (t *textTests) profileConds(f AuthorFilter, description, location string) string {
	conds := []string{"1 = 1"}
	for _, want := range []string{f.JobTitle, f.Company, f.Industry} {
		if want != "" {
			conds = append(conds, t.contains(description, want))
		}
	}
	if f.Country != "" {
		conds = append(conds, location+" <> ''")
	}
	return strings.Join(conds, " AND ")
}

// isASCII reports whether s is ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
