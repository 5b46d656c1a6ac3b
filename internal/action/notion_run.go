package action

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/trawlhq/trawl/internal/integration"
)

// notionTextMax is the most characters Notion takes in one rich text
// object; longer text is split over several.
const notionTextMax = 2000

// notionCreatePageRun converts the plain properties with the database's
// schema, then updates the page the dedupe property finds or creates one.
func notionCreatePageRun(ctx context.Context, call Call) (map[string]any, error) {
	c, err := connection(ctx, call, "notion")
	if err != nil {
		return nil, err
	}
	dbID := inputString(call.Inputs, "database_id")
	if !integration.NotionID(dbID) {
		return nil, failf(CodeInvalidInput, false, "database_id %q is not a Notion database id", dbID)
	}
	plain, ok := call.Inputs["properties"].(map[string]any)
	if !ok {
		return nil, failf(CodeInvalidInput, false, "properties must be an object of property name → value")
	}
	db, err := integration.NotionGetDatabase(ctx, c, dbID)
	if err != nil {
		return nil, serviceFailure(err)
	}
	props, err := notionProperties(db, plain)
	if err != nil {
		return nil, err
	}
	var page struct {
		ID  string `json:"id"`
		URL string `json:"url"`
	}
	if name := inputString(call.Inputs, "dedupe_property"); name != "" {
		id, err := notionFind(ctx, c, db, name, plain)
		if err != nil {
			return nil, err
		}
		if id != "" {
			err := c.Do(ctx, integration.Request{Method: http.MethodPatch, Path: "/v1/pages/" + url.PathEscape(id), Body: map[string]any{"properties": props}}, &page)
			if err != nil {
				return nil, serviceFailure(err)
			}
			return map[string]any{"id": page.ID, "url": page.URL, "created": false}, nil
		}
	}
	body := map[string]any{"parent": map[string]any{"database_id": db.ID}, "properties": props}
	if text := inputString(call.Inputs, "content"); strings.TrimSpace(text) != "" {
		blocks, err := notionParagraphs(text)
		if err != nil {
			return nil, err
		}
		body["children"] = blocks
	}
	if err := c.Do(ctx, integration.Request{Method: http.MethodPost, Path: "/v1/pages", Body: body}, &page); err != nil {
		return nil, serviceFailure(err)
	}
	return map[string]any{"id": page.ID, "url": page.URL, "created": true}, nil
}

// notionProperty finds a property by name, exactly or else ignoring case.
func notionProperty(db *integration.NotionDatabase, name string) (integration.NotionProperty, string, bool) {
	if p, ok := db.Properties[name]; ok {
		return p, name, true
	}
	for n, p := range db.Properties {
		if strings.EqualFold(n, name) {
			return p, n, true
		}
	}
	return integration.NotionProperty{}, "", false
}

func notionProperties(db *integration.NotionDatabase, plain map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for name, v := range plain {
		p, real, ok := notionProperty(db, name)
		if !ok {
			names := make([]string, 0, len(db.Properties))
			for n := range db.Properties {
				names = append(names, n)
			}
			slices.Sort(names)
			return nil, failf(CodeInvalidInput, false, "database %q has no property %q; it has %s", db.TitleText(), name, strings.Join(names, ", "))
		}
		val, err := notionValue(p.Type, v)
		if err != nil {
			return nil, failf(CodeInvalidInput, false, "property %q (%s): %v", real, p.Type, err)
		}
		out[real] = map[string]any{p.Type: val}
	}
	return out, nil
}

// notionValue is a plain value in the shape of a property type's value.
func notionValue(typ string, v any) (any, error) {
	s, isString := v.(string)
	if v == nil || isString && strings.TrimSpace(s) == "" {
		switch typ {
		case "title", "rich_text", "multi_select":
			return []any{}, nil
		case "checkbox":
			return false, nil
		}
		return nil, nil
	}
	text := fmt.Sprint(v)
	switch typ {
	case "title", "rich_text":
		return notionRichText(text), nil
	case "number":
		switch n := v.(type) {
		case float64:
			return n, nil
		case int, int64:
			return n, nil
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", text)
		}
		return f, nil
	case "select", "status":
		return map[string]any{"name": notionOption(text)}, nil
	case "multi_select":
		var names []string
		if list, ok := v.([]any); ok {
			for _, x := range list {
				names = append(names, fmt.Sprint(x))
			}
		} else {
			names = strings.Split(text, ",")
		}
		out := []any{}
		for _, n := range names {
			if n = notionOption(n); n != "" {
				out = append(out, map[string]any{"name": n})
			}
		}
		return out, nil
	case "url", "email", "phone_number":
		return strings.TrimSpace(text), nil
	case "checkbox":
		switch strings.ToLower(strings.TrimSpace(text)) {
		case "true", "yes", "1", "on", "x":
			return true, nil
		case "false", "no", "0", "off":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not true or false", text)
	case "date":
		if m, ok := v.(map[string]any); ok {
			return m, nil
		}
		text = strings.TrimSpace(text)
		if _, err := time.Parse("2006-01-02", text); err != nil {
			if _, err := time.Parse(time.RFC3339, text); err != nil {
				return nil, fmt.Errorf("%q is not an ISO 8601 date (2026-01-31 or 2026-01-31T09:00:00Z)", text)
			}
		}
		return map[string]any{"start": text}, nil
	}
	return nil, fmt.Errorf("Trawl does not write %s properties", typ)
}

// notionOption is an option name: Notion refuses commas in one.
func notionOption(s string) string {
	return strings.TrimSpace(strings.ReplaceAll(s, ",", " "))
}

// notionRichText splits text into rich text objects of at most
// notionTextMax characters each.
func notionRichText(text string) []any {
	out := []any{}
	for text != "" {
		n, i := 0, 0
		for i < len(text) && n < notionTextMax {
			_, size := utf8.DecodeRuneInString(text[i:])
			i += size
			n++
		}
		out = append(out, map[string]any{"type": "text", "text": map[string]any{"content": text[:i]}})
		text = text[i:]
	}
	return out
}

// notionParagraphs are paragraph blocks of text, one per blank-line
// separated paragraph; Notion takes at most 100 blocks in one request.
func notionParagraphs(text string) ([]any, error) {
	var blocks []any
	for _, para := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		if para = strings.TrimSpace(para); para == "" {
			continue
		}
		blocks = append(blocks, map[string]any{"object": "block", "type": "paragraph", "paragraph": map[string]any{"rich_text": notionRichText(para)}})
	}
	if len(blocks) > 100 {
		return nil, failf(CodeInvalidInput, false, "content has %d paragraphs; Notion takes at most 100 in one page creation", len(blocks))
	}
	return blocks, nil
}

// notionFind is the id of the first page whose dedupe property equals its
// value ("" when none): POST /v1/databases/{id}/query with an equals filter.
func notionFind(ctx context.Context, c *integration.Conn, db *integration.NotionDatabase, name string, plain map[string]any) (string, error) {
	p, real, ok := notionProperty(db, name)
	v, given := plain[name]
	if !ok || !given {
		return "", failf(CodeInvalidInput, false, "dedupe_property %q must be one of the properties given and of the database", name)
	}
	var want any
	switch p.Type {
	case "title", "rich_text", "email", "url", "phone_number":
		want = fmt.Sprint(v)
	case "select":
		want = notionOption(fmt.Sprint(v))
	case "number", "checkbox":
		val, err := notionValue(p.Type, v)
		if err != nil {
			return "", failf(CodeInvalidInput, false, "property %q (%s): %v", real, p.Type, err)
		}
		want = val
	default:
		return "", failf(CodeInvalidInput, false, "dedupe_property %q is a %s property, which Notion cannot filter by equality", real, p.Type)
	}
	if v == nil || want == "" {
		return "", failf(CodeInvalidInput, false, "dedupe_property %q has no value to look for", real)
	}
	var res struct {
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
	}
	body := map[string]any{"filter": map[string]any{"property": real, p.Type: map[string]any{"equals": want}}, "page_size": 1}
	if err := c.Do(ctx, integration.Request{Method: http.MethodPost, Path: "/v1/databases/" + url.PathEscape(db.ID) + "/query", Body: body}, &res); err != nil {
		return "", serviceFailure(err)
	}
	if len(res.Results) == 0 {
		return "", nil
	}
	return res.Results[0].ID, nil
}
