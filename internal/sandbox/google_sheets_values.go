package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// values serves spreadsheets.values get, update and append on one range.
func (st *gsState) values(w http.ResponseWriter, r *http.Request, a *gsAccount, d *gsSpreadsheet, raw string) {
	appending := false
	if rest, ok := strings.CutSuffix(raw, ":append"); ok {
		raw, appending = rest, true
	}
	rng, err := parseA1(raw)
	if err != nil {
		gsError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Unable to parse range: "+raw)
		return
	}
	sh := d.Sheets[0]
	if rng.HasSheet {
		sh = nil
		for _, s := range d.Sheets {
			if s.Title == rng.Sheet {
				sh = s
			}
		}
		if sh == nil {
			gsError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Unable to parse range: "+raw)
			return
		}
	}
	switch {
	case r.Method == http.MethodGet && !appending:
		gsGet(w, sh, rng)
	case r.Method == http.MethodPut && !appending, r.Method == http.MethodPost && appending:
		st.write(w, r, a, d, sh, rng, appending)
	default:
		gsError(w, http.StatusNotFound, "NOT_FOUND", "Requested entity was not found.")
	}
}

// bounds are a range's 1-based bounds within the sheet's data.
func (sh *gsSheet) bounds(r a1Range) (c1, r1, c2, r2 int) {
	c1, r1, c2, r2 = max(r.Col1, 1), max(r.Row1, 1), r.Col2, r.Row2
	if c2 == 0 {
		c2 = 26
		for _, row := range sh.Rows {
			c2 = max(c2, len(row))
		}
	}
	if r2 == 0 {
		r2 = max(len(sh.Rows), 1000)
	}
	return
}

func gsRangeText(sh *gsSheet, c1, r1, c2, r2 int) string {
	return fmt.Sprintf("%s!%s%d:%s%d", quoteTitle(sh.Title), colLetters(c1), r1, colLetters(c2), r2)
}

// gsGet answers values.get: rows of the range, trailing blanks trimmed.
func gsGet(w http.ResponseWriter, sh *gsSheet, rng a1Range) {
	c1, r1, c2, r2 := sh.bounds(rng)
	out := map[string]any{"range": gsRangeText(sh, c1, r1, c2, r2), "majorDimension": "ROWS"}
	var rows [][]string
	for i := r1; i <= r2 && i <= len(sh.Rows); i++ {
		src := sh.Rows[i-1]
		var row []string
		for j := c1; j <= c2 && j <= len(src); j++ {
			row = append(row, src[j-1])
		}
		for len(row) > 0 && row[len(row)-1] == "" {
			row = row[:len(row)-1]
		}
		rows = append(rows, row)
	}
	for len(rows) > 0 && len(rows[len(rows)-1]) == 0 {
		rows = rows[:len(rows)-1]
	}
	if len(rows) > 0 {
		for i := range rows {
			if rows[i] == nil {
				rows[i] = []string{}
			}
		}
		out["values"] = rows
	}
	writeJSON(w, http.StatusOK, out)
}

// write serves values.update (PUT) and values.append (POST).
func (st *gsState) write(w http.ResponseWriter, r *http.Request, a *gsAccount, d *gsSpreadsheet, sh *gsSheet, rng a1Range, appending bool) {
	q := r.URL.Query()
	switch q.Get("valueInputOption") {
	case "RAW", "USER_ENTERED":
	default:
		gsError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "'valueInputOption' is required but not specified")
		return
	}
	var body struct {
		Range          string  `json:"range"`
		MajorDimension string  `json:"majorDimension"`
		Values         [][]any `json:"values"`
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil || json.Unmarshal(raw, &body) != nil {
		gsError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid JSON payload received.")
		return
	}
	if body.MajorDimension != "" && body.MajorDimension != "ROWS" {
		gsError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "The sandbox writes ROWS only.")
		return
	}
	if len(body.Values) == 0 || len(body.Values) > 1000 {
		gsError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid values: between 1 and 1000 rows are required.")
		return
	}
	width := 0
	for _, row := range body.Values {
		width = max(width, len(row))
		for _, v := range row {
			if s, ok := v.(string); ok && strings.HasPrefix(s, "flaky-") && !a.flaky[s] {
				a.flaky[s] = true
				w.Header().Set("Retry-After", "1")
				gsError(w, http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Write requests' and limit 'Write requests per minute per user' of service 'sheets.googleapis.com'.")
				return
			}
		}
	}
	c1, r1 := max(rng.Col1, 1), max(rng.Row1, 1)
	if appending {
		// The table starts at the range's first row; the new rows go after
		// its last row that holds a value.
		end := len(sh.Rows) + 1
		for end > 1 && gsBlank(sh.Rows[end-2]) {
			end--
		}
		r1 = max(r1, end)
	} else if rng.Row2 != 0 && r1+len(body.Values)-1 > rng.Row2 || rng.Col2 != 0 && c1+width-1 > rng.Col2 {
		gsError(w, http.StatusBadRequest, "INVALID_ARGUMENT", fmt.Sprintf("Requested writing within range [%s], but tried writing beyond it.", gsRangeText(sh, c1, r1, max(rng.Col2, c1), max(rng.Row2, r1))))
		return
	}
	if r1+len(body.Values)-1 > gsMaxRows || c1+width-1 > 200 {
		gsError(w, http.StatusBadRequest, "INVALID_ARGUMENT", fmt.Sprintf("This action would increase the number of cells in the workbook above the limit of %d rows per sheet.", gsMaxRows))
		return
	}
	cells := 0
	for i, row := range body.Values {
		for len(sh.Rows) < r1+i {
			sh.Rows = append(sh.Rows, nil)
		}
		dst := sh.Rows[r1+i-1]
		for j, v := range row {
			// Null cells are skipped (update keeps what is there).
			if v == nil && !appending {
				continue
			}
			for len(dst) < c1+j {
				dst = append(dst, "")
			}
			dst[c1+j-1] = gsCell(v)
			cells++
		}
		sh.Rows[r1+i-1] = dst
	}
	updated := map[string]any{
		"spreadsheetId": d.ID, "updatedRange": gsRangeText(sh, c1, r1, c1+max(width, 1)-1, r1+len(body.Values)-1),
		"updatedRows": len(body.Values), "updatedColumns": width, "updatedCells": cells,
	}
	if !appending {
		writeJSON(w, http.StatusOK, updated)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"spreadsheetId": d.ID,
		"tableRange": gsRangeText(sh, c1, max(rng.Row1, 1), c1+max(width, 1)-1, max(r1-1, 1)), "updates": updated})
}

func gsBlank(row []string) bool {
	for _, c := range row {
		if c != "" {
			return false
		}
	}
	return true
}

// gsCell is a written value as the sheet shows it (USER_ENTERED numbers
// and booleans formatted as Sheets formats them).
func gsCell(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case bool:
		return strings.ToUpper(strconv.FormatBool(v))
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
