package httpapi

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/negotiation"

	"github.com/trawlhq/trawl/internal/mapping"
	"github.com/trawlhq/trawl/internal/store"
)

// Lists that answer JSON or, on request, CSV: the search results and a
// topic's engagers. Both take the author filters of AuthorQuery; a CSV
// export streams every row that passes them.

// csvBatch is how many rows an export reads per statement and writes
// between flushes: what the server holds of an export at any moment.
const csvBatch = 1000

// AuthorQuery is the author filters of a list and the format it is answered
// in. Inputs embed it (huma reads parameters of embedded structs, which must
// be exported types). Resolve validates it and fills filter and csv.
type AuthorQuery struct {
	JobTitle  string `query:"job_title" maxLength:"200" doc:"Only authors whose job title contains this, case-insensitively: for pronet members the current title of the profile topics collected (the headline until it is read), for microblog authors their bio."`
	Company   string `query:"company" maxLength:"200" doc:"Only authors whose company contains this, case-insensitively: the pronet profile's current company, or the microblog bio."`
	Industry  string `query:"industry" maxLength:"200" doc:"Only authors in this industry, case-insensitively: the whole industry of the pronet profile's company, or a word in the microblog bio."`
	Country   string `query:"country" maxLength:"100" doc:"Only authors in this country: an ISO 3166-1 alpha-2 code or English name. Pronet: the profile's country; microblog: the country the profile's location names (its last comma-separated part, e.g. \"Berlin, Germany\")."`
	Seniority string `query:"seniority" maxLength:"20" doc:"Only authors at this seniority, the level their job title states (pronet: the current title; microblog: the bio): owner, partner, cxo, vp, director, manager, senior, entry, training or unpaid, in any case."`
	Format    string `query:"format" enum:"json,csv" doc:"csv streams every row that passes the filters as RFC 4180 CSV with a header row (as Accept: text/csv does), without paging; default json."`
	Accept    string `header:"Accept" doc:"text/csv asks for CSV, as format=csv does (format wins when both are given)."`

	filter store.AuthorFilter
	csv    bool
}

// singleQuery are the parameters of these lists that take one value.
var singleQuery = []string{"job_title", "company", "industry", "country", "seniority", "format", "limit", "cursor", "from", "page", "page_size", "offset"}

// pagingQuery are the parameters that page a JSON list; a CSV export has
// every row and refuses them.
var pagingQuery = []string{"limit", "cursor", "page", "page_size", "offset"}

// Resolve implements huma.Resolver: every problem of the query, by field.
func (q *AuthorQuery) Resolve(ctx huma.Context) []error {
	var errs []error
	bad := func(name, msg string) {
		errs = append(errs, &huma.ErrorDetail{Location: "query." + name, Message: msg})
	}
	u := ctx.URL()
	raw := u.Query()
	for _, name := range singleQuery {
		if len(raw[name]) > 1 {
			bad(name, "must be given once")
		}
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"job_title", &q.JobTitle}, {"company", &q.Company}, {"industry", &q.Industry}, {"country", &q.Country}, {"seniority", &q.Seniority}} {
		*f.v = strings.TrimSpace(*f.v)
		if raw.Has(f.name) && *f.v == "" {
			bad(f.name, "must not be empty; leave it out to keep every author")
		}
	}
	q.filter = store.AuthorFilter{JobTitle: q.JobTitle, Company: q.Company, Industry: q.Industry}
	if q.Country != "" {
		code, ok := mapping.CountryCode(q.Country)
		if !ok {
			bad("country", fmt.Sprintf("%q is not an ISO 3166-1 alpha-2 code or an English country name", q.Country))
		}
		q.filter.Country = code
	}
	if q.Seniority != "" {
		level, ok := mapping.SeniorityLevel(q.Seniority)
		if !ok {
			bad("seniority", fmt.Sprintf("%q is not a seniority level; use one of %s", q.Seniority, strings.Join(mapping.SeniorityLevels(), ", ")))
		}
		q.filter.Seniority = level
	}
	q.csv = wantsCSV(q.Format, q.Accept)
	if q.csv {
		for _, name := range pagingQuery {
			if raw.Has(name) {
				bad(name, "does not apply to CSV, which streams every row that passes the filters")
			}
		}
	}
	return errs
}

// wantsCSV: format decides when given; otherwise Accept, where text/csv
// must rank above application/json (*/* and no Accept mean JSON).
func wantsCSV(format, accept string) bool {
	if format != "" {
		return format == "csv"
	}
	return negotiation.SelectQValue(accept, []string{"application/json", "text/csv"}) == "text/csv"
}

// csvOrJSON declares an operation whose 200 answer is JSON shaped as body
// (a huma.StreamResponse carries no schema of its own) or CSV, and which
// refuses unknown query parameters, so that a misspelt filter is not an
// export of everything.
func csvOrJSON(api huma.API, body any, name string) func(*huma.Operation) {
	return func(op *huma.Operation) {
		schema := api.OpenAPI().Components.Schemas.Schema(reflect.TypeOf(body), true, name)
		op.Responses = map[string]*huma.Response{"200": {
			Description: "The page as JSON, or every row that passes the filters as CSV (format=csv or Accept: text/csv).",
			Content: map[string]*huma.MediaType{
				"application/json": {Schema: schema},
				"text/csv": {Schema: &huma.Schema{Type: "string",
					Description: "RFC 4180 CSV, UTF-8, with a header row; a cell that a spreadsheet would read as a formula (starting with =, +, -, @, tab or carriage return) is prefixed with '."}},
			},
		}}
		op.RejectUnknownQueryParameters = true
	}
}

// jsonAnswer writes body as the operation's JSON answer.
func (s *Server) jsonAnswer(body any) *huma.StreamResponse {
	return &huma.StreamResponse{Body: func(ctx huma.Context) {
		ctx.SetHeader("Content-Type", "application/json")
		ctx.SetHeader("Vary", "Accept")
		ctx.SetStatus(http.StatusOK)
		if err := s.api.Marshal(ctx.BodyWriter(), "application/json", body); err != nil {
			s.log.Warn("write answer", "request_id", infoFrom(ctx.Context()).id, "error", err)
		}
	}}
}

// csvAnswer streams an export: the header, then every batch next returns
// until it returns none. The first batch is read before answering, so that
// a failing query is still an error answer; a failure after the status is
// out aborts the response (the client sees a broken transfer, never a
// complete-looking short file).
func (s *Server) csvAnswer(ctx context.Context, filename string, header []string, next func(context.Context) ([][]string, error)) (*huma.StreamResponse, error) {
	first, err := next(ctx)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		hctx.SetHeader("Content-Type", "text/csv; charset=utf-8; header=present")
		hctx.SetHeader("Content-Disposition", `attachment; filename="`+filename+`"`)
		hctx.SetHeader("Vary", "Accept")
		hctx.SetStatus(http.StatusOK)
		w := hctx.BodyWriter()
		flush := func() error { return nil }
		if rw, ok := w.(http.ResponseWriter); ok {
			flush = http.NewResponseController(rw).Flush
		}
		rctx := hctx.Context()
		err := writeCSV(w, flush, header, first, func() ([][]string, error) { return next(rctx) })
		if err != nil {
			s.log.Error("csv export failed", "request_id", infoFrom(rctx).id, "error", err)
			panic(http.ErrAbortHandler)
		}
	}}, nil
}

// writeCSV writes the header and the batches (first, then next's until it
// returns none) as RFC 4180 CSV, flushing to the client after the header
// and after each batch: rows leave while later ones are still being read.
func writeCSV(w io.Writer, flush func() error, header []string, first [][]string, next func() ([][]string, error)) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true // RFC 4180
	put := func(rows [][]string) error {
		for _, r := range rows {
			for i := range r {
				r[i] = neutralize(r[i])
			}
			if err := cw.Write(r); err != nil {
				return err
			}
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		return flush()
	}
	if err := put([][]string{header}); err != nil {
		return err
	}
	for rows := first; len(rows) > 0; {
		if err := put(rows); err != nil {
			return err
		}
		var err error
		if rows, err = next(); err != nil {
			return err
		}
	}
	return nil
}

// neutralize keeps a spreadsheet from evaluating a cell as a formula
// (OWASP's CSV injection advice): post texts and profiles are written by
// anyone, and a cell such as =HYPERLINK(…) would run when the file is
// opened. Such a cell gets a leading '.
func neutralize(cell string) string {
	if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
		return "'" + cell
	}
	return cell
}

// engagersBody is the JSON answer of the engagers list.
type engagersBody = struct {
	Message    string          `json:"message"`
	Success    bool            `json:"success"`
	Data       []engagementOut `json:"data"`
	Pagination pageInfo        `json:"pagination"`
}

// engagersCSVHeader names the columns of an engagers export: the JSON
// engager's fields, flattened, and the rest of the collected profile.
var engagersCSVHeader = []string{"id", "prospect_id", "full_name", "first_name", "last_name", "pronet_url", "headline",
	"job_title", "company", "company_domain", "company_size", "industry", "country", "followers",
	"engagement_type", "engagement_text", "pronet_post_id", "discovery_interval", "created"}

// engagerRecord is an engager as a CSV record; job_title is the title the
// JSON list shows (the headline until the profile is read).
func engagerRecord(e store.Engagement) []string {
	p := e.Person
	return []string{e.ID, p.URN, p.FullName, p.FirstName, p.LastName, p.PronetURL, p.Headline,
		cmpOr(p.JobTitle, p.Headline), p.Company, p.CompanyDomain, p.CompanySize, p.Industry, p.Country, csvInt(p.Followers),
		e.Type, e.Text, e.PostURN, string(e.DiscoveryInterval), formatTime(e.CreatedAt)}
}
