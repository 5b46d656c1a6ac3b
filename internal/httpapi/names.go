package httpapi

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// The spec names the two platforms with neutral words ('microblog',
// 'pronet'); clients of the hosted API it was written from use the real ones
// ('twitter', 'linkedin'). This file is the one place that pairs them: the
// aliases of paths, the renaming of request bodies (both names accepted) and,
// with TRAWL_API_NAMES=hosted, of response bodies and of the OpenAPI document.
// docs/names.md shows the same table (TestNamesDocListsEveryPair).

// namePair is one neutral name of the spec and the hosted API's real one.
type namePair struct{ Neutral, Hosted string }

// Settings of TRAWL_API_NAMES.
const (
	NamesSpec   = "spec"
	NamesHosted = "hosted"
)

// nameTable holds every pair, by where the name appears.
type nameTable struct {
	// paths are path segments: /v1/searches/microblog/posts is also
	// answered at /v1/searches/twitter/posts.
	paths []namePair
	// fields are JSON member names, at any depth of a body.
	fields []namePair
	// values are the values of the named member (or of its array's
	// items): monitoring_type "microblog-posts" is "twitter-posts".
	values map[string][]namePair
	// numbered are members whose items the hosted API sends as numbers
	// where the spec has strings (mentions_organization: [1441]).
	numbered []string
}

// hostedNames is the table.
func hostedNames() nameTable {
	frequencies := []namePair{{"HOURLY", "hourly"}, {"EVERY_12H", "every-12h"}, {"DAILY", "daily"},
		{"WEEKLY", "weekly"}, {"MONTHLY", "monthly"}, {"QUARTERLY", "quarterly"}}
	return nameTable{
		paths: []namePair{{"microblog", "twitter"}, {"pronet", "linkedin"}},
		fields: []namePair{
			{"microblog_language", "twitter_language"},
			{"pronet_sort_by", "linkedin_sort_by"},
			{"pronet_url", "linkedin_url"},
			{"pronet_urn", "linkedin_urn"},
			{"pronetUrl", "linkedinUrl"},
			{"pronet_post_id", "linkedin_post_id"},
			{"pronet_company_id", "linkedin_company_id"},
		},
		values: map[string][]namePair{
			"monitoring_type": {{"microblog-posts", "twitter-posts"}, {"microblog-profile", "twitter-profile"},
				{"pronet-posts", "linkedin-posts"}, {"pronet-profile", "linkedin-profile"}},
			"includes":  {{"pronet_url", "linkedin_url"}},
			"source":    {{"microblog", "twitter"}, {"pronet", "linkedin"}},
			"frequency": frequencies,
		},
		numbered: []string{"mentions_organization"},
	}
}

// valueMembers lists the members whose values the table renames, sorted.
func (t nameTable) valueMembers() []string { return slices.Sorted(maps.Keys(t.values)) }

// hostedPath is the hosted API's path of a route's path, "" when it has none.
func (t nameTable) hostedPath(path string) string {
	segs := strings.Split(path, "/")
	changed := false
	for i, s := range segs {
		for _, p := range t.paths {
			if s == p.Neutral {
				segs[i], changed = p.Hosted, true
			}
		}
	}
	if !changed {
		return ""
	}
	return strings.Join(segs, "/")
}

// field is the pair of a member name, either side; ok false when it has none.
func (t nameTable) field(name string) (namePair, bool) {
	for _, p := range t.fields {
		if name == p.Neutral || name == p.Hosted {
			return p, true
		}
	}
	return namePair{}, false
}

// value renames v, a value of member, to the hosted name (toHosted) or to
// the neutral one; requests match in any case. ok false: v has no pair.
func (t nameTable) value(member, v string, toHosted bool) (string, bool) {
	for _, p := range t.values[member] {
		switch {
		case toHosted && v == p.Neutral:
			return p.Hosted, true
		case !toHosted && strings.EqualFold(v, p.Hosted):
			return p.Neutral, true
		}
	}
	return v, false
}

// registerNamed registers op and, when its path names a platform, the same
// operation at the hosted API's path (create-twitter-posts-search at
// /v1/searches/twitter/posts), so both are answered and documented.
func registerNamed[I, O any](api huma.API, op huma.Operation, h func(context.Context, *I) (*O, error)) {
	t := hostedNames()
	hosted := op
	hosted.Metadata = maps.Clone(op.Metadata)
	hosted.Errors = slices.Clone(op.Errors)
	huma.Register(api, op, h)
	if hosted.Path = t.hostedPath(op.Path); hosted.Path == "" {
		return
	}
	hosted.OperationID = strings.Join(strings.Split(t.hostedPath("/"+strings.ReplaceAll(op.OperationID, "-", "/")), "/")[1:], "-")
	hosted.Summary += " (hosted API path)"
	huma.Register(api, hosted, h)
}
