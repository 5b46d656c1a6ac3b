package httpapi

import "strings"

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
