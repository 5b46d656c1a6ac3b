package httpapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// openAPISchema is the part of a schema the shape tests read.
type openAPISchema struct {
	Type       any                       `json:"type"`
	Ref        string                    `json:"$ref"`
	Items      *openAPISchema            `json:"items"`
	Properties map[string]*openAPISchema `json:"properties"`
	Required   []string                  `json:"required"`
}

// types lists a schema's JSON types ("type" is a string or a list).
func (s *openAPISchema) types() []string {
	switch v := s.Type.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, t := range v {
			out = append(out, t.(string))
		}
		return out
	}
	return nil
}

func responseSchemas(t *testing.T) (map[string]*openAPISchema, map[string]bool) {
	t.Helper()
	ts := newDocsServer(t)
	body := getDocs(t, ts, http.MethodGet, "/openapi.json", true).body
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]*openAPISchema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	// The schemas an answer may carry: those its responses refer to, and
	// theirs in turn.
	refRE := func(raw []byte) []string {
		var out []string
		for _, part := range strings.Split(string(raw), `"$ref":"#/components/schemas/`)[1:] {
			out = append(out, part[:strings.IndexByte(part, '"')])
		}
		return out
	}
	seen := map[string]bool{}
	var todo []string
	for _, ops := range doc.Paths {
		for _, raw := range ops {
			var op struct {
				Responses json.RawMessage `json:"responses"`
			}
			if json.Unmarshal(raw, &op) == nil {
				todo = append(todo, refRE(op.Responses)...)
			}
		}
	}
	for len(todo) > 0 {
		name := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if seen[name] {
			continue
		}
		seen[name] = true
		raw, _ := json.Marshal(doc.Components.Schemas[name])
		todo = append(todo, refRE(raw)...)
	}
	return doc.Components.Schemas, seen
}

// TestAnswersDocumentArraysAsArrays: no list an answer carries is
// documented as nullable. Every answer writes [] for an empty list, and
// the document says so, so a generated client never checks for null.
func TestAnswersDocumentArraysAsArrays(t *testing.T) {
	schemas, answered := responseSchemas(t)
	if len(answered) < 20 {
		t.Fatalf("only %d schemas found in answers", len(answered))
	}
	for name := range answered {
		for prop, ps := range schemas[name].Properties {
			if ts := ps.types(); slices.Contains(ts, "array") && slices.Contains(ts, "null") {
				t.Errorf("%s.%s is documented as an array or null", name, prop)
			}
		}
	}
}

// TestAnswerShapesFollowTheSpec: the members the spec gives are required
// and of the spec's type in the document, as the answers write them.
func TestAnswerShapesFollowTheSpec(t *testing.T) {
	schemas, _ := responseSchemas(t)
	for _, tc := range []struct {
		schema   string
		required []string
		types    map[string]string // member: its only JSON type
	}{
		{"Post", []string{"author", "company", "article", "video", "image", "document"},
			map[string]string{"article": "object", "video": "array", "image": "array"}},
		{"Document", []string{"coverPages"}, map[string]string{"coverPages": "array"}},
		{"CoverPage", []string{"imageUrls"}, map[string]string{"imageUrls": "array"}},
		{"PostAuthor", []string{"profilePictures"}, map[string]string{"profilePictures": "array"}},
		{"ResharedPost", []string{"text", "author", "company", "document", "article", "video", "image"},
			map[string]string{"author": "object", "document": "object", "article": "object", "video": "array", "image": "array"}},
		{"ResharedCompany", []string{"companyLogo"}, map[string]string{"companyLogo": "array"}},
		{"TopicOut", []string{"content_type", "keywords", "keywords_and", "keywords_not", "job_titles"},
			map[string]string{"content_type": "string", "keywords": "array"}},
		{"CreatorOut", []string{"followers", "avg_last_10_engagement", "avg_days_between_posts"},
			map[string]string{"followers": "integer", "avg_last_10_engagement": "number", "avg_days_between_posts": "number"}},
		{"ExecutionOut", []string{"column_config"}, map[string]string{"column_config": "array"}},
	} {
		s := schemas[tc.schema]
		if s == nil {
			t.Errorf("no schema %s", tc.schema)
			continue
		}
		for _, m := range tc.required {
			if !slices.Contains(s.Required, m) {
				t.Errorf("%s.%s is not required", tc.schema, m)
			}
		}
		for m, want := range tc.types {
			if got := s.Properties[m].types(); !slices.Equal(got, []string{want}) {
				t.Errorf("%s.%s has types %v, want only %s", tc.schema, m, got, want)
			}
		}
	}
	// A reshare stub is never written: resharedPost is there on reshares only.
	if slices.Contains(schemas["Post"].Required, "resharedPost") {
		t.Error("Post.resharedPost is required")
	}
}
