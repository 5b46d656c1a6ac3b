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
	fields   []searchFieldSpec
}

// path is the create endpoint; its preview is path + "/preview".
func (k searchKind) path() string { return "/v1/searches/" + k.Platform + "/" + k.Kind }

// input types of the form; each decides how the value goes into the body.
const (
	searchText     = "text"
	searchURL      = "url"
	searchNumber   = "number"   // an integer; what is not one is sent as typed, for the API to name
	searchList     = "textarea" // a string array, one item a line
	searchCheckbox = "checkbox" // true when checked, left out otherwise
	searchSelect   = "select"   // left out when "" (the API's default)
)

// searchFieldSpec is one body member of a create endpoint as a form input.
type searchFieldSpec struct {
	Name, Label, Hint, Type, Group string
	Options                        []searchOption
}

type searchOption struct {
	Value, Label string
	Selected     bool
}

// Groups of the form, in order.
const (
	searchGroupWhat     = "What to watch"
	searchGroupOps      = "Operators and filters"
	searchGroupSchedule = "Schedule"
	searchGroupDelivery = "Delivery"
)

func searchGroups() []string {
	return []string{searchGroupWhat, searchGroupOps, searchGroupSchedule, searchGroupDelivery}
}

// searchChoices are options of values, with a first one that leaves the member
// out (the API's default, named in dflt).
func searchChoices(dflt string, values ...string) []searchOption {
	out := []searchOption{{Value: "", Label: "Default (" + dflt + ")"}}
	for _, v := range values {
		out = append(out, searchOption{Value: v, Label: v})
	}
	return out
}

func searchFrequencies() []string {
	var out []string
	for _, f := range search.Frequencies() {
		out = append(out, string(f))
	}
	return out
}

// searchKinds are the four kinds the console creates, by platform and kind.
func searchKinds() []searchKind {
	nameField := searchFieldSpec{Name: "name", Label: "Name (required)", Type: searchText, Group: searchGroupWhat, Hint: "1-255 characters."}
	keywordFields := []searchFieldSpec{
		{Name: "keywords", Label: "Keywords (any of)", Type: searchList, Group: searchGroupWhat, Hint: "One a line; a post matches any of them. At most 10 keywords in the three lists together."},
		{Name: "keywords_and", Label: "Keywords (all of)", Type: searchList, Group: searchGroupWhat, Hint: "One a line; a post must hold every one."},
		{Name: "keywords_not", Label: "Excluded keywords", Type: searchList, Group: searchGroupWhat, Hint: "One a line; a post with one of them is left out."},
	}
	maxResultsField := searchFieldSpec{Name: "max_results", Label: "Results per run", Type: searchNumber, Group: searchGroupSchedule, Hint: "10-100; 50 when empty."}
	frequencyField := searchFieldSpec{Name: "frequency", Label: "Frequency", Type: searchSelect, Group: searchGroupSchedule, Hint: "HOURLY needs the ENTERPRISE or CUSTOM plan.",
		Options: searchChoices(string(search.DefaultFrequency), searchFrequencies()...)}
	webhookField := searchFieldSpec{Name: "webhook_url", Label: "Webhook URL", Type: searchURL, Group: searchGroupDelivery,
		Hint: "Optional: each run's new results are POSTed here, signed with a secret shown once, after saving."}
	pronetTimeFrame := searchFieldSpec{Name: "time_frame", Label: "Time frame", Type: searchSelect, Group: searchGroupSchedule, Hint: "How far back a run reads.",
		Options: searchChoices(search.DefaultTimeFrame, search.PronetTimeFrames()...)}
	return []searchKind{
		{Platform: "microblog", Kind: "posts", Title: "Microblog keyword search", fields: append(append([]searchFieldSpec{nameField}, keywordFields...),
			searchFieldSpec{Name: "from_users", Label: "From users", Type: searchList, Group: searchGroupOps, Hint: "Usernames, one a line (a standalone operator: keywords may then be empty)."},
			searchFieldSpec{Name: "to_user", Label: "To user", Type: searchText, Group: searchGroupOps, Hint: "A username (standalone operator)."},
			searchFieldSpec{Name: "retweets_of", Label: "Reposts of", Type: searchText, Group: searchGroupOps, Hint: "A username (standalone operator)."},
			searchFieldSpec{Name: "url_contains", Label: "URL contains", Type: searchText, Group: searchGroupOps, Hint: "Standalone operator."},
			searchFieldSpec{Name: "conversation_id", Label: "Conversation id", Type: searchText, Group: searchGroupOps, Hint: "A numeric post id (standalone operator)."},
			searchFieldSpec{Name: "list_id", Label: "List id", Type: searchText, Group: searchGroupOps, Hint: "A numeric list id (standalone operator)."},
			searchFieldSpec{Name: "context_annotation", Label: "Context annotation", Type: searchText, Group: searchGroupOps, Hint: "domain_id.entity_id (standalone operator)."},
			searchFieldSpec{Name: "place_country", Label: "Place country", Type: searchText, Group: searchGroupOps, Hint: "ISO 3166-1 alpha-2 code (standalone operator)."},
			searchFieldSpec{Name: "microblog_language", Label: "Language", Type: searchText, Group: searchGroupOps, Hint: "A language code, e.g. en or pt-BR."},
			searchFieldSpec{Name: "search_type", Label: "Search type", Type: searchSelect, Group: searchGroupOps, Options: searchChoices(search.DefaultSearchType, "Top", "Latest", "Videos", "Photos")},
			searchFieldSpec{Name: "has_media", Label: "Media", Type: searchSelect, Group: searchGroupOps, Options: []searchOption{{Value: "", Label: "No filter"}, {Value: "any", Label: "any"}, {Value: "images", Label: "images"}, {Value: "video", Label: "video"}}},
			searchFieldSpec{Name: "exclude_retweets", Label: "Exclude reposts", Type: searchCheckbox, Group: searchGroupOps},
			searchFieldSpec{Name: "exclude_replies", Label: "Exclude replies", Type: searchCheckbox, Group: searchGroupOps},
			searchFieldSpec{Name: "verified_only", Label: "Verified authors only", Type: searchCheckbox, Group: searchGroupOps},
			searchFieldSpec{Name: "has_links", Label: "Posts with links only", Type: searchCheckbox, Group: searchGroupOps},
			searchFieldSpec{Name: "use_full_archive", Label: "Use the full archive", Type: searchCheckbox, Group: searchGroupOps, Hint: "Needs a key with full-archive access."},
			searchFieldSpec{Name: "time_frame", Label: "Time frame", Type: searchSelect, Group: searchGroupSchedule, Hint: "How far back a run reads.",
				Options: searchChoices(search.DefaultTimeFrame, search.TimeFrames()...)},
			maxResultsField, frequencyField, webhookField)},
		{Platform: "microblog", Kind: "profile", Title: "Microblog profile monitor", fields: []searchFieldSpec{nameField,
			{Name: "profile_url", Label: "Profile URL (required)", Type: searchURL, Group: searchGroupWhat, Hint: "A profile on x.com or twitter.com, e.g. https://x.com/jack."},
			maxResultsField, frequencyField, webhookField}},
		{Platform: "pronet", Kind: "posts", Title: "Pronet keyword search", fields: append(append([]searchFieldSpec{nameField}, keywordFields...),
			searchFieldSpec{Name: "mentions_member", Label: "Mentions members", Type: searchList, Group: searchGroupOps, Hint: "Member URNs (urn:li:member:<id>), one a line; keywords may then be empty."},
			searchFieldSpec{Name: "mentions_organization", Label: "Mentions companies", Type: searchList, Group: searchGroupOps, Hint: "Numeric company ids, one a line; keywords may then be empty."},
			searchFieldSpec{Name: "job_titles", Label: "Author job titles", Type: searchList, Group: searchGroupOps, Hint: "One a line; keeps posts whose author's current title contains one. At most 10."},
			searchFieldSpec{Name: "content_type", Label: "Content type", Type: searchSelect, Group: searchGroupOps, Options: searchChoices(search.DefaultContentType, pronet.ContentTypes()...)},
			searchFieldSpec{Name: "pronet_sort_by", Label: "Sort by", Type: searchSelect, Group: searchGroupOps, Options: searchChoices(search.DefaultPronetSortBy, pronet.SortDate, pronet.SortRelevance)},
			pronetTimeFrame, maxResultsField, frequencyField, webhookField)},
		{Platform: "pronet", Kind: "profile", Title: "Pronet profile monitor", fields: []searchFieldSpec{nameField,
			{Name: "profile_url", Label: "Profile URL (required)", Type: searchURL, Group: searchGroupWhat, Hint: "The member's /in/ profile URL, e.g. https://www.linkedin.com/in/jane-doe."},
			pronetTimeFrame, maxResultsField, frequencyField, webhookField}},
	}
}

// searchKindOf is the kind of platform and kind ("" for each: a microblog keyword
// search); false when there is none.
func searchKindOf(platform, kind string) (searchKind, bool) {
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
		case searchCheckbox:
			if v != "" {
				b[f.Name] = true
			}
		case searchList:
			if items := searchLines(form.Get(f.Name)); len(items) > 0 {
				b[f.Name] = items
			}
		case searchNumber:
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

// searchLines are the non-empty searchLines of a textarea, trimmed.
func searchLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// searchInput is one input as the template draws it: its value as typed and
// the API's message for it.
type searchInput struct {
	searchFieldSpec
	Value   string
	Checked bool
	Problem fieldProblem
}

// searchGroup is a fieldset of the form.
type searchGroup struct {
	Legend string
	Fields []searchInput
}

// groups are the form's inputs filled from form (nil: empty) with the
// problem's messages at them.
func (k searchKind) groups(form url.Values, p apiProblem) []searchGroup {
	var out []searchGroup
	for _, g := range searchGroups() {
		fg := searchGroup{Legend: g}
		for _, f := range k.fields {
			if f.Group != g {
				continue
			}
			ff := searchInput{searchFieldSpec: f, Value: form.Get(f.Name), Problem: p.At(f.Name)}
			ff.Checked = f.Type == searchCheckbox && ff.Value != ""
			if f.Type == searchSelect {
				ff.Options = make([]searchOption, len(f.Options))
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
