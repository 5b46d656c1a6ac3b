package console

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The API has no CSV of social mapping or creator discovery (their answers
// are JSON pages), so the console writes one from those pages: it asks the
// API for page after page of the same query at the largest page size and
// writes each page's rows as they come, under a fixed header, so memory
// holds one page whatever the total. Each page is a real API request: the
// same permission, plan, credits (1 per result) and rate limit as the table.

// csvPageSize is the API's largest page: the fewest requests.
const csvPageSize = 50

// longestRateWait is the longest Retry-After the export waits out; a
// longer one ends the download.
const longestRateWait = 60 * time.Second

var mappingCSVHeader = []string{"first_name", "last_name", "pronet_url", "job_title", "company", "company_domain", "location", "followers",
	"engagement_type", "post_url", "post_date", "post_text", "post_likes", "post_comments"}

var creatorsCSVHeader = []string{"name", "pronet_url", "job_title", "company", "company_domain", "company_size", "company_industry",
	"location", "followers", "qualifying_posts", "avg_last_10_engagement", "avg_days_between_posts"}

// mappingCSV is GET /leads.csv.
func (c *Console) mappingCSV(w http.ResponseWriter, r *http.Request, s session) {
	c.leadsCSV(w, r, s, mappingTool())
}

// creatorsCSV is GET /leads/creators.csv.
func (c *Console) creatorsCSV(w http.ResponseWriter, r *http.Request, s session) {
	c.leadsCSV(w, r, s, creatorsTool())
}

// leadsCSV streams every result of the query string's query as CSV. A
// refusal of the first page is the form with the API's messages; a failure
// after the header went out aborts the response, so the browser reports a
// failed download instead of keeping a file that looks whole.
func (c *Console) leadsCSV(w http.ResponseWriter, r *http.Request, s session, t leadsTool) {
	if d := t.denied(s); d != "" {
		c.message(w, r, http.StatusForbidden, "Not allowed", d)
		return
	}
	q := r.URL.Query()
	body := formBody(t.Groups, q)
	body["page_size"] = csvPageSize
	var cw *csv.Writer
	for page := 1; ; page++ {
		body["page"] = page
		a, err := c.apiWaiting(r, s, t.API, body)
		if err == nil && !a.OK() && cw == nil {
			c.showAnswer(w, r, s, t, q, a)
			return
		}
		if err == nil && !a.OK() {
			err = fmt.Errorf("console: %s page %d: the API answered %d: %s", t.API, page, a.Status, a.Problem().Message)
		}
		var rows [][]string
		var total int64
		if err == nil {
			rows, total, err = csvRows(t.Kind, a)
		}
		if err != nil && cw == nil {
			c.serverError(w, r, err)
			return
		}
		if err != nil {
			c.log.Error("console: leads CSV cut short", "path", r.URL.Path, "error", err)
			panic(http.ErrAbortHandler)
		}
		if cw == nil {
			h := w.Header()
			h.Set("Content-Type", "text/csv; charset=utf-8; header=present")
			h.Set("Content-Disposition", `attachment; filename="`+t.Kind+`.csv"`)
			h.Set("Cache-Control", "no-store")
			cw = csv.NewWriter(w)
			_ = cw.Write(t.csvHeader())
		}
		for _, row := range rows {
			for i := range row {
				row[i] = neutralize(row[i])
			}
		}
		if err := cw.WriteAll(rows); err != nil {
			return // the browser went away
		}
		if len(rows) < csvPageSize || int64(page)*csvPageSize >= total {
			return
		}
	}
}

func (t leadsTool) csvHeader() []string {
	if t.Kind == "creators" {
		return creatorsCSVHeader
	}
	return mappingCSVHeader
}

// apiWaiting asks the API for one page, waiting out its rate limit as a
// client does (Retry-After), so a long export is not cut at the window.
func (c *Console) apiWaiting(r *http.Request, s session, path string, body map[string]any) (apiAnswer, error) {
	for {
		a, err := c.api(r, s, http.MethodPost, path, nil, body)
		if err != nil || a.Status != http.StatusTooManyRequests {
			return a, err
		}
		secs, perr := strconv.Atoi(a.Header.Get("Retry-After"))
		wait := time.Duration(secs) * time.Second
		if perr != nil || secs < 0 || wait > longestRateWait {
			return a, nil
		}
		timer := time.NewTimer(wait)
		select {
		case <-r.Context().Done():
			timer.Stop()
			return a, r.Context().Err()
		case <-timer.C:
		}
	}
}

// csvRows are one API page's results as CSV records, and the total.
func csvRows(kind string, a apiAnswer) ([][]string, int64, error) {
	if kind == "creators" {
		var p leadsPage[creatorResult]
		if err := a.Data(&p); err != nil {
			return nil, 0, err
		}
		rows := make([][]string, 0, len(p.Results))
		for _, c := range p.Results {
			rows = append(rows, []string{c.Name, c.PronetURL, c.JobTitle, c.Company, c.CompanyDomain, c.CompanySize, c.CompanyIndustry,
				c.Location, strconv.FormatInt(c.Followers, 10), strconv.Itoa(c.QualifyingPosts),
				strconv.FormatFloat(c.AvgLast10Engagement, 'f', -1, 64), strconv.FormatFloat(c.AvgDaysBetweenPosts, 'f', -1, 64)})
		}
		return rows, p.Total, nil
	}
	var p leadsPage[mappingResult]
	if err := a.Data(&p); err != nil {
		return nil, 0, err
	}
	rows := make([][]string, 0, len(p.Results))
	for _, m := range p.Results {
		rows = append(rows, m.record())
	}
	return rows, p.Total, nil
}

// record is the person as a row under mappingCSVHeader; a member the
// query's includes left out is an empty cell.
func (m mappingResult) record() []string {
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	num := func(p *int64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatInt(*p, 10)
	}
	rec := []string{str(m.FirstName), str(m.LastName), str(m.PronetURL), str(m.JobTitle), str(m.Company), str(m.CompanyDomain),
		str(m.Location), num(m.Followers), "", "", "", "", "", ""}
	if m.Engagement != nil {
		rec[8] = m.Engagement.Type
	}
	if p := m.Post; p != nil {
		rec[9], rec[10], rec[11], rec[12], rec[13] = str(p.URL), str(p.Date), str(p.Text), num(p.Likes), num(p.Comments)
	}
	return rec
}

// neutralize keeps a spreadsheet from evaluating a cell as a formula, as
// the API's own CSV exports do (OWASP's CSV injection advice): names and
// post texts are written by anyone. Such a cell gets a leading '.
func neutralize(cell string) string {
	if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
		return "'" + cell
	}
	return cell
}
