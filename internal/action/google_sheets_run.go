package action

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/internal/integration"
)

// sheetsRun appends (upsert false) or updates-or-appends a row. Sheets has
// no idempotency key: a row is found again by its key_column value, which
// is what makes a retried step safe (docs/integrations/sheets-airtable.md).
func sheetsRun(upsert bool) Executor {
	return func(ctx context.Context, call Call) (map[string]any, error) {
		in := call.Inputs
		id, err := integration.SpreadsheetID(inputString(in, "spreadsheet_id"))
		if err != nil {
			return nil, failf(CodeInvalidInput, false, "spreadsheet_id %v", err)
		}
		sheet := strings.TrimSpace(inputString(in, "sheet"))
		if sheet == "" {
			return nil, failf(CodeInvalidInput, false, "sheet is required: the sheet's title")
		}
		key := strings.TrimSpace(inputString(in, "key_column"))
		if upsert && key == "" {
			return nil, failf(CodeInvalidInput, false, "key_column is required")
		}
		if upsert {
			if _, ok := in["values"].(map[string]any); !ok {
				return nil, failf(CodeInvalidInput, false, "values must be an object of column header → value")
			}
		}
		c, err := connection(ctx, call, "google_sheets")
		if err != nil {
			return nil, err
		}
		sheets, err := integration.SheetsOf(ctx, c, id)
		if err != nil {
			return nil, serviceFailure(err)
		}
		title, ok := integration.SheetTitle(sheets, sheet)
		if !ok {
			return nil, failf(CodeInvalidInput, false, "sheet %q is not a sheet of the spreadsheet", sheet)
		}
		header, err := integration.HeaderRow(ctx, c, id, title)
		if err != nil {
			return nil, serviceFailure(err)
		}
		w := sheetsWriter{c: c, id: id, title: title}
		row, newHeader, err := sheetsRow(in["values"], header)
		if err != nil {
			return nil, err
		}
		if newHeader != nil {
			// An empty sheet gets the object's keys as its header row.
			if _, err := w.update(ctx, 1, newHeader); err != nil {
				return nil, serviceFailure(err)
			}
			header = newHeader
		}
		return w.write(ctx, header, row, key, upsert)
	}
}

// sheetsWriter writes the rows of one sheet.
type sheetsWriter struct {
	c         *integration.Conn
	id, title string
}

// write finds the row holding the key (when key_column is given), then
// updates it (upsert) or leaves it; otherwise it appends the row.
func (w sheetsWriter) write(ctx context.Context, header []string, row []any, key string, upsert bool) (map[string]any, error) {
	if key != "" {
		idx := headerIndex(header, key)
		if idx < 0 {
			return nil, failf(CodeInvalidInput, false, "key_column %q is not a header of sheet %q (its headers: %s)", key, w.title, strings.Join(header, ", "))
		}
		keyValue := ""
		if idx < len(row) {
			keyValue = integration.CellText(row[idx])
		}
		if keyValue == "" {
			return nil, failf(CodeInvalidInput, false, "values has no value for the key column %q", key)
		}
		col := integration.ColumnLetter(idx)
		cells, err := integration.Values(ctx, w.c, w.id, integration.QuoteSheet(w.title)+"!"+col+":"+col)
		if err != nil {
			return nil, serviceFailure(err)
		}
		for i := 1; i < len(cells); i++ { // row 1 is the header
			if len(cells[i]) > 0 && integration.CellText(cells[i][0]) == keyValue {
				if !upsert {
					return map[string]any{"row": i + 1, "created": false, "updated_range": ""}, nil
				}
				rng, err := w.update(ctx, i+1, row)
				if err != nil {
					return nil, serviceFailure(err)
				}
				return map[string]any{"row": i + 1, "created": false, "updated_range": rng}, nil
			}
		}
	}
	var answer struct {
		Updates struct {
			UpdatedRange string `json:"updatedRange"`
		} `json:"updates"`
	}
	err := w.c.Do(ctx, integration.Request{
		Method: http.MethodPost,
		Path:   integration.ValuesPath(w.id, integration.QuoteSheet(w.title)+"!A1") + ":append",
		Query:  url.Values{"valueInputOption": {"USER_ENTERED"}, "insertDataOption": {"INSERT_ROWS"}},
		Body:   integration.ValueRange{MajorDimension: "ROWS", Values: [][]any{row}},
	}, &answer)
	if err != nil {
		return nil, serviceFailure(err)
	}
	return map[string]any{"row": integration.RowOfRange(answer.Updates.UpdatedRange), "created": true, "updated_range": answer.Updates.UpdatedRange}, nil
}

// update writes cells over row n (1-based); nil cells keep theirs.
func (w sheetsWriter) update(ctx context.Context, n int, row any) (string, error) {
	var cells []any
	switch r := row.(type) {
	case []any:
		cells = r
	case []string:
		for _, s := range r {
			cells = append(cells, s)
		}
	}
	last := integration.ColumnLetter(max(len(cells), 1) - 1)
	a1 := integration.QuoteSheet(w.title) + "!A" + strconv.Itoa(n) + ":" + last + strconv.Itoa(n)
	var answer struct {
		UpdatedRange string `json:"updatedRange"`
	}
	err := w.c.Do(ctx, integration.Request{
		Method: http.MethodPut, Path: integration.ValuesPath(w.id, a1),
		Query: url.Values{"valueInputOption": {"USER_ENTERED"}},
		Body:  integration.ValueRange{Range: a1, MajorDimension: "ROWS", Values: [][]any{cells}},
	}, &answer)
	return answer.UpdatedRange, err
}

// sheetsRow maps values onto the header: an object by header name (a
// sheet without a header gets its keys, sorted, as newHeader), or an
// array in column order.
func sheetsRow(values any, header []string) (row []any, newHeader []string, err error) {
	switch v := values.(type) {
	case []any:
		if len(v) == 0 || len(v) > 200 {
			return nil, nil, failf(CodeInvalidInput, false, "values must hold between 1 and 200 cells")
		}
		row = make([]any, len(v))
		for i, x := range v {
			row[i] = sheetsCell(x)
		}
		return row, nil, nil
	case map[string]any:
		if len(v) == 0 || len(v) > 200 {
			return nil, nil, failf(CodeInvalidInput, false, "values must hold between 1 and 200 columns")
		}
		if !slices.ContainsFunc(header, func(h string) bool { return h != "" }) {
			for k := range v {
				newHeader = append(newHeader, k)
			}
			slices.Sort(newHeader)
			header = newHeader
		}
		row = make([]any, len(header))
		var unknown []string
		last := -1
		for k, x := range v {
			i := headerIndex(header, k)
			if i < 0 {
				unknown = append(unknown, k)
				continue
			}
			row[i] = sheetsCell(x)
			last = max(last, i)
		}
		if len(unknown) > 0 {
			slices.Sort(unknown)
			return nil, nil, failf(CodeInvalidInput, false, "values names columns the sheet's header row lacks: %s (its headers: %s)",
				strings.Join(unknown, ", "), strings.Join(header, ", "))
		}
		return row[:last+1], newHeader, nil
	}
	return nil, nil, failf(CodeInvalidInput, false, "values must be an object of column header → value, or an array of values")
}

// headerIndex finds a column by header: exactly, else ignoring case and
// surrounding spaces; -1 when none.
func headerIndex(header []string, name string) int {
	if i := slices.Index(header, name); i >= 0 {
		return i
	}
	return slices.IndexFunc(header, func(h string) bool {
		return h != "" && strings.EqualFold(strings.TrimSpace(h), strings.TrimSpace(name))
	})
}

// sheetsCell is a value Sheets takes: text, number, boolean or null;
// anything else is written as its JSON.
func sheetsCell(v any) any {
	switch v.(type) {
	case nil, string, float64, bool, int, int64:
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
