package integration

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// sheetsMimeQuery is Drive's search for spreadsheets.
const sheetsMimeQuery = "mimeType='application/vnd.google-apps.spreadsheet' and trashed=false"

// driveFileList is Drive v3's files.list answer.
type driveFileList struct {
	Files []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"files"`
	NextPageToken string `json:"nextPageToken"`
}

// maxLookupPages bounds the pages a lookup reads.
const maxLookupPages = 10

// sheetsDocuments lists the spreadsheets shared with the service account
// (Drive v3 files.list): [{id, name}].
func sheetsDocuments(ctx context.Context, c *Conn, _ url.Values) (any, error) {
	type doc struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	out := []doc{}
	q := url.Values{"q": {sheetsMimeQuery}, "pageSize": {"100"}, "orderBy": {"name"}, "fields": {"nextPageToken,files(id,name)"}}
	d := c.driveConn()
	defer func() { c.Creds = d.Creds }() // the token Drive's calls got
	for page := 0; page < maxLookupPages; page++ {
		var list driveFileList
		if err := d.Do(ctx, Request{Path: "/drive/v3/files", Query: q}, &list); err != nil {
			return nil, err
		}
		for _, f := range list.Files {
			out = append(out, doc{f.ID, f.Name})
		}
		if list.NextPageToken == "" {
			break
		}
		q.Set("pageToken", list.NextPageToken)
	}
	return out, nil
}

// SheetProps are a sheet's properties (spreadsheets.get).
type SheetProps struct {
	SheetID int64  `json:"sheetId"`
	Title   string `json:"title"`
	Index   int    `json:"index"`
}

// SheetsOf reads a spreadsheet's sheets: GET /v4/spreadsheets/{id}?fields=sheets.properties.
func SheetsOf(ctx context.Context, c *Conn, spreadsheetID string) ([]SheetProps, error) {
	var meta struct {
		Sheets []struct {
			Properties SheetProps `json:"properties"`
		} `json:"sheets"`
	}
	err := c.Do(ctx, Request{Path: "/v4/spreadsheets/" + url.PathEscape(spreadsheetID), Query: url.Values{"fields": {"sheets.properties"}}}, &meta)
	if err != nil {
		return nil, err
	}
	out := make([]SheetProps, len(meta.Sheets))
	for i, s := range meta.Sheets {
		out[i] = s.Properties
	}
	return out, nil
}

func sheetsSheets(ctx context.Context, c *Conn, p url.Values) (any, error) {
	id, err := SpreadsheetID(p.Get("document_id"))
	if err != nil {
		return nil, &ParamError{"document_id", err.Error()}
	}
	sheets, err := SheetsOf(ctx, c, id)
	if err != nil {
		return nil, err
	}
	type sheet struct {
		ID    int64  `json:"id"`
		Title string `json:"title"`
		Index int    `json:"index"`
	}
	out := make([]sheet, len(sheets))
	for i, s := range sheets {
		out[i] = sheet{s.SheetID, s.Title, s.Index}
	}
	return out, nil
}

// Column is one column of a sheet's header row.
type Column struct {
	Index  int    `json:"index"`
	Letter string `json:"letter"`
	Name   string `json:"name"`
}

func sheetsColumns(ctx context.Context, c *Conn, p url.Values) (any, error) {
	id, err := SpreadsheetID(p.Get("document_id"))
	if err != nil {
		return nil, &ParamError{"document_id", err.Error()}
	}
	ref := strings.TrimSpace(p.Get("sheet_id"))
	if ref == "" {
		return nil, &ParamError{"sheet_id", "is required: the sheet's id (gid) or title"}
	}
	sheets, err := SheetsOf(ctx, c, id)
	if err != nil {
		return nil, err
	}
	title, ok := SheetTitle(sheets, ref)
	if !ok {
		return nil, &ParamError{"sheet_id", "names no sheet of the spreadsheet (GET /v1/integrations/google-sheets/documents/" + id + "/sheets lists them)"}
	}
	header, err := HeaderRow(ctx, c, id, title)
	if err != nil {
		return nil, err
	}
	out := make([]Column, 0, len(header))
	for i, h := range header {
		out = append(out, Column{Index: i, Letter: ColumnLetter(i), Name: h})
	}
	return out, nil
}

// SheetTitle finds the sheet ref names: its title, else its gid.
func SheetTitle(sheets []SheetProps, ref string) (string, bool) {
	for _, s := range sheets {
		if s.Title == ref {
			return s.Title, true
		}
	}
	if gid, err := strconv.ParseInt(ref, 10, 64); err == nil {
		for _, s := range sheets {
			if s.SheetID == gid {
				return s.Title, true
			}
		}
	}
	return "", false
}

// ValueRange is the Sheets API's ValueRange.
type ValueRange struct {
	Range          string  `json:"range,omitempty"`
	MajorDimension string  `json:"majorDimension,omitempty"`
	Values         [][]any `json:"values"`
}

// Values reads a range's formatted values: GET /v4/spreadsheets/{id}/values/{range}.
func Values(ctx context.Context, c *Conn, spreadsheetID, a1 string) ([][]any, error) {
	var vr ValueRange
	err := c.Do(ctx, Request{Path: ValuesPath(spreadsheetID, a1), Query: url.Values{"majorDimension": {"ROWS"}}}, &vr)
	return vr.Values, err
}

// HeaderRow reads a sheet's first row, as text.
func HeaderRow(ctx context.Context, c *Conn, spreadsheetID, title string) ([]string, error) {
	rows, err := Values(ctx, c, spreadsheetID, QuoteSheet(title)+"!1:1")
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	out := make([]string, len(rows[0]))
	for i, v := range rows[0] {
		out[i] = CellText(v)
	}
	return out, nil
}

// CellText is a cell's value as the sheet shows it.
func CellText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	return strings.TrimSpace(fmt.Sprint(v))
}

// ValuesPath is the path of a range's values.
func ValuesPath(spreadsheetID, a1 string) string {
	return "/v4/spreadsheets/" + url.PathEscape(spreadsheetID) + "/values/" + url.PathEscape(a1)
}

// QuoteSheet quotes a sheet's title for an A1 range ('Sheet 1', with
// quotes doubled), as Sheets requires for titles with spaces or symbols.
func QuoteSheet(title string) string {
	return "'" + strings.ReplaceAll(title, "'", "''") + "'"
}

// ColumnLetter is the A1 letter of a 0-based column index (0 → A, 26 → AA).
func ColumnLetter(i int) string {
	var b []byte
	for i++; i > 0; i = (i - 1) / 26 {
		b = append([]byte{byte('A' + (i-1)%26)}, b...)
	}
	return string(b)
}

var (
	spreadsheetURLRE = regexp.MustCompile(`/spreadsheets/d/([A-Za-z0-9_-]+)`)
	spreadsheetIDRE  = regexp.MustCompile(`^[A-Za-z0-9_-]{10,100}$`)
)

// SpreadsheetID reads a spreadsheet's id, or the id in its URL
// (https://docs.google.com/spreadsheets/d/{id}/edit#gid=0).
func SpreadsheetID(s string) (string, error) {
	s = strings.TrimSpace(s)
	if m := spreadsheetURLRE.FindStringSubmatch(s); m != nil && strings.Contains(s, "://") {
		s = m[1]
	}
	if !spreadsheetIDRE.MatchString(s) {
		return "", fmt.Errorf("must be a spreadsheet's id or its docs.google.com URL")
	}
	return s, nil
}
