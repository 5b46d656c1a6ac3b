package sandbox

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Notion's pages of the sandbox's databases: create, update, query.

func (p *notionPage) title(db *notionDB) string {
	for _, d := range db.Props {
		if d.Type == "title" {
			return notionPlain(p.Props[d.Name])
		}
	}
	return ""
}

// notionPlain is a property value's comparable value, as a string.
func notionPlain(v map[string]any) string {
	typ, _ := v["type"].(string)
	switch x := v[typ].(type) {
	case []any:
		var b strings.Builder
		for _, item := range x {
			m, _ := item.(map[string]any)
			if t, ok := m["text"].(map[string]any); ok {
				fmt.Fprint(&b, t["content"])
			} else if n, ok := m["name"]; ok {
				fmt.Fprint(&b, n, ",")
			}
		}
		return strings.TrimSuffix(b.String(), ",")
	case map[string]any:
		if n, ok := x["name"]; ok {
			return fmt.Sprint(n)
		}
		return fmt.Sprint(x["start"])
	case nil:
		return ""
	default:
		return fmt.Sprint(x)
	}
}

var notionSlugRE = regexp.MustCompile(`[^A-Za-z0-9]+`)

func (p *notionPage) object(db *notionDB) map[string]any {
	props := map[string]any{}
	for i, d := range db.Props {
		v := map[string]any{"id": fmt.Sprintf("p%d", i), "type": d.Type, d.Type: nil}
		for k, x := range p.Props[d.Name] {
			v[k] = x
		}
		props[d.Name] = v
	}
	slug := strings.Trim(notionSlugRE.ReplaceAllString(p.title(db), "-"), "-")
	u := "https://www.notion.so/" + strings.ReplaceAll(p.ID, "-", "")
	if slug != "" {
		u = "https://www.notion.so/" + slug + "-" + strings.ReplaceAll(p.ID, "-", "")
	}
	return map[string]any{"object": "page", "id": p.ID, "created_time": p.Created.Format("2006-01-02T15:04:05.000Z"),
		"last_edited_time": p.Edited.Format("2006-01-02T15:04:05.000Z"), "archived": false, "in_trash": false,
		"parent": map[string]any{"type": "database_id", "database_id": p.DatabaseID}, "properties": props, "url": u}
}

// notionValidate checks property values against the database's schema
// and returns them with their type; "" when they pass, else the message.
func notionValidate(db *notionDB, in map[string]map[string]any) (map[string]map[string]any, string) {
	out := map[string]map[string]any{}
	for name, v := range in {
		i := -1
		for j, d := range db.Props {
			if d.Name == name {
				i = j
			}
		}
		if i < 0 {
			return nil, name + " is not a property that exists."
		}
		typ := db.Props[i].Type
		x, ok := v[typ]
		if !ok {
			return nil, fmt.Sprintf("body failed validation: body.properties.%s.%s should be defined, instead was `undefined`.", name, typ)
		}
		if msg := notionCheckValue(name, typ, x); msg != "" {
			return nil, msg
		}
		out[name] = map[string]any{"type": typ, typ: x}
	}
	return out, ""
}

func notionCheckValue(name, typ string, x any) string {
	bad := fmt.Sprintf("body failed validation: body.properties.%s.%s is not a valid %s value.", name, typ, typ)
	switch typ {
	case "title", "rich_text":
		items, ok := x.([]any)
		if !ok {
			return bad
		}
		return notionCheckRichText("body.properties."+name+"."+typ, items)
	case "number":
		if _, ok := x.(float64); !ok && x != nil {
			return bad
		}
	case "checkbox":
		if _, ok := x.(bool); !ok {
			return bad
		}
	case "url", "email", "phone_number":
		if s, ok := x.(string); !ok && x != nil || utf8.RuneCountInString(s) > 2000 {
			return bad
		}
	case "select":
		if m, ok := x.(map[string]any); x != nil && (!ok || m["name"] == nil) {
			return bad
		}
	case "multi_select":
		items, ok := x.([]any)
		if !ok {
			return bad
		}
		for _, it := range items {
			if m, ok := it.(map[string]any); !ok || m["name"] == nil {
				return bad
			}
		}
	case "date":
		m, ok := x.(map[string]any)
		if x != nil && !ok {
			return bad
		}
		if s, _ := m["start"].(string); x != nil && s == "" {
			return bad
		}
	}
	return ""
}

// notionCheckRichText enforces Notion's 2,000-character limit of a text.
func notionCheckRichText(path string, items []any) string {
	for i, it := range items {
		m, _ := it.(map[string]any)
		t, _ := m["text"].(map[string]any)
		s, ok := t["content"].(string)
		if !ok {
			return fmt.Sprintf("body failed validation: %s[%d].text should be defined, instead was `undefined`.", path, i)
		}
		if utf8.RuneCountInString(s) > 2000 {
			return fmt.Sprintf("body failed validation: %s[%d].text.content.length should be ≤ `2000`, instead was `%d`.", path, i, utf8.RuneCountInString(s))
		}
	}
	return ""
}

func notionCheckChildren(children []map[string]any) string {
	if len(children) > 100 {
		return "body failed validation: body.children.length should be ≤ `100`."
	}
	for i, b := range children {
		typ, _ := b["type"].(string)
		blk, _ := b[typ].(map[string]any)
		items, _ := blk["rich_text"].([]any)
		if blk == nil {
			return fmt.Sprintf("body failed validation: body.children[%d].%s should be defined.", i, typ)
		}
		if msg := notionCheckRichText(fmt.Sprintf("body.children[%d].%s.rich_text", i, typ), items); msg != "" {
			return msg
		}
	}
	return ""
}

func notionCreatePage(w http.ResponseWriter, r *http.Request, ws *notionWorkspace) {
	var req struct {
		Parent struct {
			DatabaseID string `json:"database_id"`
		} `json:"parent"`
		Properties map[string]map[string]any `json:"properties"`
		Children   []map[string]any          `json:"children"`
	}
	if !notionDecode(w, r, &req) {
		return
	}
	if req.Parent.DatabaseID == "" {
		notionError(w, http.StatusBadRequest, "validation_error", "body failed validation: body.parent.database_id should be defined, instead was `undefined`.")
		return
	}
	db := ws.database(req.Parent.DatabaseID)
	if db == nil {
		notionError(w, http.StatusNotFound, "object_not_found", "Could not find database with ID: "+req.Parent.DatabaseID+". Make sure the relevant pages and databases are shared with your integration.")
		return
	}
	props, msg := notionValidate(db, req.Properties)
	if msg == "" {
		msg = notionCheckChildren(req.Children)
	}
	if msg != "" {
		notionError(w, http.StatusBadRequest, "validation_error", msg)
		return
	}
	p := &notionPage{DatabaseID: db.ID, Props: props, Blocks: len(req.Children)}
	if t := p.title(db); strings.HasPrefix(t, "flaky-") && !ws.flaky[t] {
		ws.flaky[t] = true
		w.Header().Set("Retry-After", "1")
		notionError(w, http.StatusTooManyRequests, "rate_limited", "You have been rate limited. Please try again in a few minutes.")
		return
	}
	if len(ws.pages) >= notionMaxPages {
		notionError(w, http.StatusBadRequest, "validation_error", fmt.Sprintf("The workspace has reached its limit of %d pages.", notionMaxPages))
		return
	}
	p.ID = uuidOfSeed(fmt.Sprintf("notion-page:%s:%d", db.ID, len(ws.order)))
	p.Created = time.Now().UTC().Truncate(time.Millisecond)
	p.Edited = p.Created
	ws.pages[p.ID] = p
	ws.order = append(ws.order, p.ID)
	writeJSON(w, http.StatusOK, p.object(db))
}

func notionUpdatePage(w http.ResponseWriter, r *http.Request, ws *notionWorkspace) {
	p := ws.pages[notionCanon(r.PathValue("id"))]
	if p == nil {
		notionError(w, http.StatusNotFound, "object_not_found", "Could not find page with ID: "+r.PathValue("id")+". Make sure the relevant pages and databases are shared with your integration.")
		return
	}
	var req struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if !notionDecode(w, r, &req) {
		return
	}
	db := ws.database(p.DatabaseID)
	props, msg := notionValidate(db, req.Properties)
	if msg != "" {
		notionError(w, http.StatusBadRequest, "validation_error", msg)
		return
	}
	for k, v := range props {
		p.Props[k] = v
	}
	p.Edited = time.Now().UTC().Truncate(time.Millisecond)
	writeJSON(w, http.StatusOK, p.object(db))
}

// notionQuery answers a database's pages, all of them or those one
// equals filter ({"property", "<type>": {"equals": v}}) keeps.
func notionQuery(w http.ResponseWriter, r *http.Request, ws *notionWorkspace) {
	db := ws.database(r.PathValue("id"))
	if db == nil {
		notionError(w, http.StatusNotFound, "object_not_found", "Could not find database with ID: "+r.PathValue("id")+". Make sure the relevant pages and databases are shared with your integration.")
		return
	}
	var req struct {
		Filter   map[string]any `json:"filter"`
		PageSize int            `json:"page_size"`
	}
	if !notionDecode(w, r, &req) {
		return
	}
	match := func(*notionPage) bool { return true }
	if req.Filter != nil {
		name, _ := req.Filter["property"].(string)
		var def *notionPropDef
		for i := range db.Props {
			if db.Props[i].Name == name {
				def = &db.Props[i]
			}
		}
		if def == nil {
			notionError(w, http.StatusBadRequest, "validation_error", "Could not find property with name or id: "+name)
			return
		}
		cond, _ := req.Filter[def.Type].(map[string]any)
		want, ok := cond["equals"]
		if !ok {
			notionError(w, http.StatusBadRequest, "validation_error", fmt.Sprintf("body failed validation: body.filter.%s.equals should be defined.", def.Type))
			return
		}
		match = func(p *notionPage) bool { return notionPlain(p.Props[def.Name]) == fmt.Sprint(want) }
	}
	results := []any{}
	for _, id := range ws.order {
		if p := ws.pages[id]; p.DatabaseID == db.ID && match(p) && len(results) < 100 {
			results = append(results, p.object(db))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "results": results, "next_cursor": nil, "has_more": false,
		"type": "page_or_database", "page_or_database": map[string]any{}})
}
