package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/internal/source"
)

// Shapes of the hosted API that differ from Trawl's where the spec leaves
// them open, answered only with TRAWL_API_NAMES=hosted (docs/decisions.md,
// "Hosted shapes"). The spec gives content.media as an array without
// saying of what; Trawl's items are {type, url, preview_url} and the same
// item is a workflow trigger's payload and a webhook event's body, whose
// templates read content.media[0].url. The hosted client reads a list of
// URL strings, absent or null when there are none: a hosted server answers
// that list, and keeps the objects beside it as content.media_items.

// hostedMedia reshapes content (a result item's content object) in place:
// media becomes the list of its URLs, media_items the objects; both are
// absent when the item has no media.
func hostedMedia(content map[string]any) {
	items, ok := content["media"].([]any)
	if !ok {
		return
	}
	urls := make([]any, 0, len(items))
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return // not Trawl's media objects: left as they are
		}
		u, _ := m["url"].(string)
		urls = append(urls, u)
	}
	delete(content, "media")
	if len(urls) == 0 {
		return
	}
	content["media"], content["media_items"] = urls, items
}

// docHostedMedia is hostedMedia for the document: in a schema whose media
// property lists Media objects, media lists strings and media_items the
// objects, neither required.
func docHostedMedia(schema map[string]any, props map[string]any) {
	media, ok := props["media"].(map[string]any)
	if !ok {
		return
	}
	items, _ := media["items"].(map[string]any)
	ref, _ := items["$ref"].(string)
	if !strings.HasSuffix(ref, "/Media") && !strings.HasSuffix(ref, "/Media.json") {
		return
	}
	props["media_items"] = media
	props["media"] = map[string]any{"type": "array", "items": map[string]any{"type": "string"},
		"description": "URLs of the attached media (images; a video's preview image); absent when none. The objects are in media_items."}
	req, _ := schema["required"].([]any)
	kept := req[:0]
	for _, r := range req {
		if r != "media" {
			kept = append(kept, r)
		}
	}
	schema["required"] = kept
}

// The hosted API numbers the collection that found an engagement by the
// day of its follow-up (0 for the first collection, then 1, 3, 5); Trawl
// names it (initial, rediscovery, day1, day3, day5), and the spec is silent
// on both the engagers' and the credits summary's shapes. A hosted server
// answers the numbers: rediscovery, the first collection of a post found
// by a later run, is 0 like initial.
var hostedIntervals = map[string]json.Number{"initial": "0", "rediscovery": "0", "day1": "1", "day3": "3", "day5": "5"}

// hostedIntervalMembers are the members holding an interval.
var hostedIntervalMembers = []string{"discovery_interval", "interval"}

// hostedInterval reshapes obj (one object of an answer) in place: its
// interval members become numbers, and the credits summary's list by
// interval keeps one entry per number (initial and rediscovery summed).
func hostedInterval(obj map[string]any) {
	for _, m := range hostedIntervalMembers {
		if s, ok := obj[m].(string); ok {
			if n, ok := hostedIntervals[s]; ok {
				obj[m] = n
			}
		}
	}
	list, ok := obj["engagement_credits_by_interval"].([]any)
	if !ok {
		return
	}
	merged := make([]any, 0, len(list))
	byInterval := map[json.Number]map[string]any{}
	for _, it := range list {
		e, ok := it.(map[string]any)
		n, isNum := e["interval"].(json.Number)
		if !ok || !isNum {
			merged = append(merged, it)
			continue
		}
		prev, seen := byInterval[n]
		if !seen {
			byInterval[n] = e
			merged = append(merged, e)
			continue
		}
		for _, k := range []string{"credits", "billed_engagements_count"} {
			prev[k] = addNumbers(prev[k], e[k])
		}
		if c, ok := prev["upstream_cost_usd"]; ok {
			prev["upstream_cost_usd"] = addUSD(c, e["upstream_cost_usd"])
		}
	}
	obj["engagement_credits_by_interval"] = merged
}

// addUSD sums two amounts of dollars written with six places (source.Micros.USD);
// a when either is not one.
func addUSD(a, b any) any {
	x, okA := a.(string)
	y, okB := b.(string)
	if !okA || !okB {
		return a
	}
	mx, errX := parseMicros(x)
	my, errY := parseMicros(y)
	if errX != nil || errY != nil {
		return a
	}
	return (mx + my).USD()
}

// parseMicros reads "1.234000" (six places, no sign) back as micros.
func parseMicros(s string) (source.Micros, error) {
	whole, frac, ok := strings.Cut(s, ".")
	if !ok || len(frac) != 6 {
		return 0, errors.New("not six decimal places")
	}
	w, err := strconv.ParseUint(whole, 10, 64)
	if err != nil {
		return 0, err
	}
	if w > math.MaxInt64/1_000_000-1 {
		return 0, errors.New("too large")
	}
	f, err := strconv.ParseUint(frac, 10, 32)
	if err != nil {
		return 0, err
	}
	return source.Micros(w*1_000_000 + f), nil
}

// addNumbers sums two JSON numbers of an answer (a when b is not one).
func addNumbers(a, b any) any {
	x, okA := a.(json.Number)
	y, okB := b.(json.Number)
	if !okA || !okB {
		return a
	}
	if i, err := x.Int64(); err == nil {
		if j, err := y.Int64(); err == nil {
			return json.Number(strconv.FormatInt(i+j, 10))
		}
	}
	f, _ := x.Float64()
	g, _ := y.Float64()
	return json.Number(strconv.FormatFloat(round4(f+g), 'f', -1, 64))
}

// docHostedInterval is hostedInterval for the document: an interval
// property whose enum names Trawl's intervals holds their numbers.
func docHostedInterval(props map[string]any) {
	for _, m := range hostedIntervalMembers {
		p, ok := props[m].(map[string]any)
		if !ok {
			continue
		}
		enum, _ := p["enum"].([]any)
		if !slices.Contains(enum, any("initial")) {
			continue
		}
		var nums []any
		for _, e := range enum {
			if n, ok := hostedIntervals[fmt.Sprint(e)]; ok && !slices.Contains(nums, any(n)) {
				nums = append(nums, n)
			}
		}
		props[m] = map[string]any{"type": "integer", "enum": nums,
			"description": "The collection: 0 the first (a post's discovery), then 1, 3, 5 (the Day 1, 3, 5 follow-ups)."}
	}
}

// The hosted API pages a workflow's executions inside data: {items, page,
// page_size, total, has_more}. The spec names the endpoint and gives no
// shape; Trawl's answer (data the list, pagination beside it, as its other
// page-numbered lists) is kept in spec mode, and a hosted server answers
// the hosted shape: one data member cannot be both a list and an object.

// executionsListSchema is the document's schema of that answer.
const executionsListSchema = "PagedReplyExecutionOutBody"

// isExecutionsList reports whether path is a workflow's executions list.
func isExecutionsList(method, path string) bool {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	return method == "GET" && len(segs) == 4 && segs[0] == "v1" && segs[1] == "workflows" && segs[3] == "executions"
}

// hostedExecutionsPage reshapes the answer of the executions list.
func hostedExecutionsPage(v any) any {
	body, ok := v.(map[string]any)
	if !ok {
		return v
	}
	pg, ok := body["pagination"].(map[string]any)
	if !ok {
		return v // an error answer
	}
	page, _ := pg["page"].(json.Number)
	pages, _ := pg["total_pages"].(json.Number)
	p, _ := page.Int64()
	n, _ := pages.Int64()
	body["data"] = map[string]any{"items": body["data"], "page": pg["page"], "page_size": pg["page_size"],
		"total": pg["total_count"], "has_more": p < n}
	delete(body, "pagination")
	return body
}

// docHostedExecutionsPage is hostedExecutionsPage for the document.
func docHostedExecutionsPage(doc map[string]any) {
	comps, _ := doc["components"].(map[string]any)
	schemas, _ := comps["schemas"].(map[string]any)
	schema, _ := schemas[executionsListSchema].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	if props == nil || props["pagination"] == nil {
		return
	}
	integer := map[string]any{"type": "integer", "format": "int64"}
	props["data"] = map[string]any{"type": "object", "additionalProperties": false,
		"required": []any{"items", "page", "page_size", "total", "has_more"},
		"properties": map[string]any{"items": props["data"], "page": integer, "page_size": integer, "total": integer,
			"has_more": map[string]any{"type": "boolean"}}}
	delete(props, "pagination")
	req, _ := schema["required"].([]any)
	kept := req[:0]
	for _, r := range req {
		if r != "pagination" {
			kept = append(kept, r)
		}
	}
	schema["required"] = kept
}
