package console

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

// The create form of a saved search: one input per member of the create
// endpoint's body, by kind. The console checks nothing of them: the form
// becomes the JSON body as typed, and the API's messages come back at the
// inputs (apiProblem.At).

// searchKind is one of the four create endpoints, chosen by platform and kind.
type searchKind struct {
	Platform string // microblog or pronet
	Kind     string // posts (keywords) or profile (a profile monitor)
	Title    string
	fields   []fieldSpec
}

// path is the create endpoint; its preview is path + "/preview".
func (k searchKind) path() string { return "/v1/searches/" + k.Platform + "/" + k.Kind }

// input types of the form; each decides how the value goes into the body.
const (
	inText     = "text"
	inURL      = "url"
	inNumber   = "number"   // an integer; what is not one is sent as typed, for the API to name
	inList     = "textarea" // a string array, one item a line
	inCheckbox = "checkbox" // true when checked, left out otherwise
	inSelect   = "select"   // left out when "" (the API's default)
)

// fieldSpec is one body member of a create endpoint as a form input.
type fieldSpec struct {
	Name, Label, Hint, Type, Group string
	Options                        []option
}

type option struct {
	Value, Label string
	Selected     bool
}

// Groups of the form, in order.
const (
	groupWhat     = "What to watch"
	groupOps      = "Operators and filters"
	groupSchedule = "Schedule"
	groupDelivery = "Delivery"
)

func formGroups() []string { return []string{groupWhat, groupOps, groupSchedule, groupDelivery} }

// choices are options of values, with a first one that leaves the member
// out (the API's default, named in dflt).
func choices(dflt string, values ...string) []option {
	out := []option{{Value: "", Label: "Default (" + dflt + ")"}}
	for _, v := range values {
		out = append(out, option{Value: v, Label: v})
	}
	return out
}

func frequencies() []string {
	var out []string
	for _, f := range search.Frequencies() {
		out = append(out, string(f))
	}
	return out
}

// searchKinds are the four kinds the console creates, by platform and kind.
func searchKinds() []searchKind {
	nameField := fieldSpec{Name: "name", Label: "Name (required)", Type: inText, Group: groupWhat, Hint: "1-255 characters."}
	keywordFields := []fieldSpec{
		{Name: "keywords", Label: "Keywords (any of)", Type: inList, Group: groupWhat, Hint: "One a line; a post matches any of them. At most 10 keywords in the three lists together."},
		{Name: "keywords_and", Label: "Keywords (all of)", Type: inList, Group: groupWhat, Hint: "One a line; a post must hold every one."},
		{Name: "keywords_not", Label: "Excluded keywords", Type: inList, Group: groupWhat, Hint: "One a line; a post with one of them is left out."},
	}
	maxResultsField := fieldSpec{Name: "max_results", Label: "Results per run", Type: inNumber, Group: groupSchedule, Hint: "10-100; 50 when empty."}
	frequencyField := fieldSpec{Name: "frequency", Label: "Frequency", Type: inSelect, Group: groupSchedule, Hint: "HOURLY needs the ENTERPRISE or CUSTOM plan.",
		Options: choices(string(search.DefaultFrequency), frequencies()...)}
	webhookField := fieldSpec{Name: "webhook_url", Label: "Webhook URL", Type: inURL, Group: groupDelivery,
		Hint: "Optional: each run's new results are POSTed here, signed with a secret shown once, after saving."}
	pronetTimeFrame := fieldSpec{Name: "time_frame", Label: "Time frame", Type: inSelect, Group: groupSchedule, Hint: "How far back a run reads.",
		Options: choices(search.DefaultTimeFrame, search.PronetTimeFrames()...)}
	return []searchKind{
		{Platform: "microblog", Kind: "posts", Title: "Microblog keyword search", fields: append(append([]fieldSpec{nameField}, keywordFields...),
			fieldSpec{Name: "from_users", Label: "From users", Type: inList, Group: groupOps, Hint: "Usernames, one a line (a standalone operator: keywords may then be empty)."},
			fieldSpec{Name: "to_user", Label: "To user", Type: inText, Group: groupOps, Hint: "A username (standalone operator)."},
			fieldSpec{Name: "retweets_of", Label: "Reposts of", Type: inText, Group: groupOps, Hint: "A username (standalone operator)."},
			fieldSpec{Name: "url_contains", Label: "URL contains", Type: inText, Group: groupOps, Hint: "Standalone operator."},
			fieldSpec{Name: "conversation_id", Label: "Conversation id", Type: inText, Group: groupOps, Hint: "A numeric post id (standalone operator)."},
			fieldSpec{Name: "list_id", Label: "List id", Type: inText, Group: groupOps, Hint: "A numeric list id (standalone operator)."},
			fieldSpec{Name: "context_annotation", Label: "Context annotation", Type: inText, Group: groupOps, Hint: "domain_id.entity_id (standalone operator)."},
			fieldSpec{Name: "place_country", Label: "Place country", Type: inText, Group: groupOps, Hint: "ISO 3166-1 alpha-2 code (standalone operator)."},
			fieldSpec{Name: "microblog_language", Label: "Language", Type: inText, Group: groupOps, Hint: "A language code, e.g. en or pt-BR."},
			fieldSpec{Name: "search_type", Label: "Search type", Type: inSelect, Group: groupOps, Options: choices(search.DefaultSearchType, "Top", "Latest", "Videos", "Photos")},
			fieldSpec{Name: "has_media", Label: "Media", Type: inSelect, Group: groupOps, Options: []option{{Value: "", Label: "No filter"}, {Value: "any", Label: "any"}, {Value: "images", Label: "images"}, {Value: "video", Label: "video"}}},
			fieldSpec{Name: "exclude_retweets", Label: "Exclude reposts", Type: inCheckbox, Group: groupOps},
			fieldSpec{Name: "exclude_replies", Label: "Exclude replies", Type: inCheckbox, Group: groupOps},
			fieldSpec{Name: "verified_only", Label: "Verified authors only", Type: inCheckbox, Group: groupOps},
			fieldSpec{Name: "has_links", Label: "Posts with links only", Type: inCheckbox, Group: groupOps},
			fieldSpec{Name: "use_full_archive", Label: "Use the full archive", Type: inCheckbox, Group: groupOps, Hint: "Needs a key with full-archive access."},
			fieldSpec{Name: "time_frame", Label: "Time frame", Type: inSelect, Group: groupSchedule, Hint: "How far back a run reads.",
				Options: choices(search.DefaultTimeFrame, search.TimeFrames()...)},
			maxResultsField, frequencyField, webhookField)},
		{Platform: "microblog", Kind: "profile", Title: "Microblog profile monitor", fields: []fieldSpec{nameField,
			{Name: "profile_url", Label: "Profile URL (required)", Type: inURL, Group: groupWhat, Hint: "A profile on x.com or twitter.com, e.g. https://x.com/jack."},
			maxResultsField, frequencyField, webhookField}},
		{Platform: "pronet", Kind: "posts", Title: "Pronet keyword search", fields: append(append([]fieldSpec{nameField}, keywordFields...),
			fieldSpec{Name: "mentions_member", Label: "Mentions members", Type: inList, Group: groupOps, Hint: "Member URNs (urn:li:member:<id>), one a line; keywords may then be empty."},
			fieldSpec{Name: "mentions_organization", Label: "Mentions companies", Type: inList, Group: groupOps, Hint: "Numeric company ids, one a line; keywords may then be empty."},
			fieldSpec{Name: "job_titles", Label: "Author job titles", Type: inList, Group: groupOps, Hint: "One a line; keeps posts whose author's current title contains one. At most 10."},
			fieldSpec{Name: "content_type", Label: "Content type", Type: inSelect, Group: groupOps, Options: choices(search.DefaultContentType, pronet.ContentTypes()...)},
			fieldSpec{Name: "pronet_sort_by", Label: "Sort by", Type: inSelect, Group: groupOps, Options: choices(search.DefaultPronetSortBy, pronet.SortDate, pronet.SortRelevance)},
			pronetTimeFrame, maxResultsField, frequencyField, webhookField)},
		{Platform: "pronet", Kind: "profile", Title: "Pronet profile monitor", fields: []fieldSpec{nameField,
			{Name: "profile_url", Label: "Profile URL (required)", Type: inURL, Group: groupWhat, Hint: "The member's /in/ profile URL, e.g. https://www.linkedin.com/in/jane-doe."},
			pronetTimeFrame, maxResultsField, frequencyField, webhookField}},
	}
}

// kindOf is the kind of platform and kind ("" for each: a microblog keyword
// search); false when there is none.
func kindOf(platform, kind string) (searchKind, bool) {
	if platform == "" {
		platform = "microblog"
	}
	if kind == "" {
		kind = "posts"
	}
	for _, k := range searchKinds() {
		if k.Platform == platform && k.Kind == kind {
			return k, true
		}
	}
	return searchKind{}, false
}

// names are the form's input names, for apiProblem.Place.
func (k searchKind) names() []string {
	out := make([]string, len(k.fields))
	for i, f := range k.fields {
		out[i] = f.Name
	}
	return out
}

// body is the form as the endpoint's JSON body: what is empty is left out
// (the API's default); a number that is not one goes as typed, for the API
// to say so at its field.
func (k searchKind) body(form url.Values) map[string]any {
	b := map[string]any{}
	for _, f := range k.fields {
		v := strings.TrimSpace(form.Get(f.Name))
		switch f.Type {
		case inCheckbox:
			if v != "" {
				b[f.Name] = true
			}
		case inList:
			if items := lines(form.Get(f.Name)); len(items) > 0 {
				b[f.Name] = items
			}
		case inNumber:
			if v == "" {
				continue
			}
			if n, err := strconv.Atoi(v); err == nil {
				b[f.Name] = n
			} else {
				b[f.Name] = v
			}
		default:
			if v != "" {
				b[f.Name] = v
			}
		}
	}
	return b
}

// lines are the non-empty lines of a textarea, trimmed.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// formField is one input as the template draws it: its value as typed and
// the API's message for it.
type formField struct {
	fieldSpec
	Value   string
	Checked bool
	Problem fieldProblem
}

// formGroup is a fieldset of the form.
type formGroup struct {
	Legend string
	Fields []formField
}

// groups are the form's inputs filled from form (nil: empty) with the
// problem's messages at them.
func (k searchKind) groups(form url.Values, p apiProblem) []formGroup {
	var out []formGroup
	for _, g := range formGroups() {
		fg := formGroup{Legend: g}
		for _, f := range k.fields {
			if f.Group != g {
				continue
			}
			ff := formField{fieldSpec: f, Value: form.Get(f.Name), Problem: p.At(f.Name)}
			ff.Checked = f.Type == inCheckbox && ff.Value != ""
			if f.Type == inSelect {
				ff.Options = make([]option, len(f.Options))
				for i, o := range f.Options {
					o.Selected = o.Value == ff.Value
					ff.Options[i] = o
				}
			}
			fg.Fields = append(fg.Fields, ff)
		}
		if len(fg.Fields) > 0 {
			out = append(out, fg)
		}
	}
	return out
}
