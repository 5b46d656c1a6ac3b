package console

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// The Leads forms are GET forms whose inputs carry the API body's own field
// names, so a result page has a shareable URL and the API's messages land at
// their inputs by name. formBody turns the query string into the JSON body
// by the field's type only: it never judges a value. What does not parse as
// a number is sent as typed, and the API refuses it with its own message.

// fieldKind is how a form value becomes a JSON value.
type fieldKind int

const (
	// listField is a string list typed as text: split on commas and newlines.
	listField fieldKind = iota
	// choicesField is a string list picked from Options (checkboxes).
	choicesField
	// numberField is one number; with Options it is picked from them (a select).
	numberField
)

// leadsField is one input of a Leads form, named as the API's body field.
type leadsField struct {
	Name     string
	Label    string
	Hint     string
	Kind     fieldKind
	Options  []string
	Required bool
}

// ID is the field's element id (and its error's prefix), as apiProblem.At makes it.
func (f leadsField) ID() string { return strings.ReplaceAll(f.Name, ".", "-") }

// List says the field is typed as a list of text.
func (f leadsField) List() bool { return f.Kind == listField }

// Choices says the field is checkboxes.
func (f leadsField) Choices() bool { return f.Kind == choicesField }

// Select says the field is one pick from Options.
func (f leadsField) Select() bool { return f.Kind == numberField && len(f.Options) > 0 }

// Number says the field is a typed number.
func (f leadsField) Number() bool { return f.Kind == numberField && len(f.Options) == 0 }

// leadsGroup is a fieldset of a Leads form; a Folded one is shut (a
// <details>) until one of its fields has a value or a message.
type leadsGroup struct {
	Legend string
	Folded bool
	Fields []leadsField
}

// companySizes are the spec's company size buckets.
var companySizes = []string{"1-10", "11-50", "51-200", "201-500", "501-1000", "1001-5000", "5001-10000", "10001+"}

// firmographicGroups are the filters social mapping and creator discovery
// share (the spec: "same body rules"), and their paging.
func firmographicGroups() []leadsGroup {
	return []leadsGroup{
		{Legend: "People", Folded: true, Fields: []leadsField{
			{Name: "job_titles", Label: "Job titles", Hint: "A current title containing one of these; separate with commas."},
			{Name: "job_titles_excludes", Label: "Job titles to exclude"},
			{Name: "location_country", Label: "Countries", Hint: "ISO codes (US, DE) or English names."},
			{Name: "location_excludes", Label: "Countries to exclude"},
			{Name: "followers", Label: "Follower ranges", Hint: "MIN-MAX or MIN+, such as 1000-5000, 10000+."},
		}},
		{Legend: "Companies", Folded: true, Fields: []leadsField{
			{Name: "company_domain_includes", Label: "Company domains", Hint: "acme.com also matches its subdomains."},
			{Name: "company_domain_excludes", Label: "Company domains to exclude"},
			{Name: "industries", Label: "Industries"},
			{Name: "industries_excludes", Label: "Industries to exclude"},
			{Name: "company_sizes", Label: "Company sizes", Kind: choicesField, Options: companySizes},
			{Name: "company_sizes_excludes", Label: "Company sizes to exclude", Kind: choicesField, Options: companySizes},
		}},
	}
}

// pagingGroup is the page and its size, as the API pages.
func pagingGroup() leadsGroup {
	return leadsGroup{Legend: "Paging", Fields: []leadsField{
		{Name: "page_size", Label: "Per page", Kind: numberField, Options: []string{"10", "25", "50"}, Hint: "Default 10."},
		{Name: "page", Label: "Page", Kind: numberField, Hint: "Default 1."},
	}}
}

// mappingGroups is every field of POST /v1/social/mapping.
func mappingGroups() []leadsGroup {
	groups := []leadsGroup{{Legend: "Topic", Fields: []leadsField{
		{Name: "engaged_with_keywords", Label: "Engaged with posts about", Hint: "Keywords or phrases; separate with commas.", Required: true},
		{Name: "engaged_with_days", Label: "In the last (days)", Kind: numberField, Hint: "1 to 30.", Required: true},
		{Name: "engaged_with_topic_strength", Label: "Topic strength", Kind: numberField, Hint: "Keyword mentions a post needs, 0 to 5; default 1."},
	}}}
	groups = append(groups, firmographicGroups()...)
	groups = append(groups, leadsGroup{Legend: "Members", Folded: true, Fields: []leadsField{{Name: "includes", Label: "Members of each result", Kind: choicesField,
		Hint: "Default every member.", Options: []string{"first_name", "last_name", "pronet_url", "avatar", "location", "company", "company_domain",
			"job_title", "followers", "post.text", "post.url", "post.date", "post.likes", "post.comments", "engagement.type"}}}})
	return append(groups, pagingGroup())
}

// creatorsGroups is every field of POST /v1/discover/creators.
func creatorsGroups() []leadsGroup {
	groups := []leadsGroup{{Legend: "Topic", Fields: []leadsField{
		{Name: "posted_about_keywords", Label: "Posted about", Hint: "Keywords or phrases; separate with commas.", Required: true},
		{Name: "posted_about_days", Label: "In the last (days)", Kind: numberField, Hint: "1 to 30.", Required: true},
		{Name: "posted_about_topic_strength", Label: "Topic strength", Kind: numberField, Hint: "Keyword mentions a post needs, 0 to 5; default 1."},
	}}}
	groups = append(groups, firmographicGroups()...)
	return append(groups, pagingGroup())
}

// fieldNames are the names of the groups' inputs (for apiProblem.Place).
func fieldNames(groups []leadsGroup) []string {
	var names []string
	for _, g := range groups {
		for _, f := range g.Fields {
			names = append(names, f.Name)
		}
	}
	return names
}

// formBody is the API body of the form's query: each field the query gives,
// by its kind; fields left empty are left out (the API's defaults apply).
func formBody(groups []leadsGroup, q url.Values) map[string]any {
	body := map[string]any{}
	for _, g := range groups {
		for _, f := range g.Fields {
			switch f.Kind {
			case listField, choicesField:
				if items := splitList(q[f.Name]...); len(items) > 0 {
					body[f.Name] = items
				}
			case numberField:
				v := strings.TrimSpace(q.Get(f.Name))
				if v == "" {
					continue
				}
				if json.Valid([]byte(v)) && strings.IndexFunc(v, func(r rune) bool { return (r < '0' || r > '9') && !strings.ContainsRune("+-.eE", r) }) < 0 {
					body[f.Name] = json.Number(v) // sent as the number typed, for the API to judge
				} else {
					body[f.Name] = v // not a number: the API says so at the field
				}
			}
		}
	}
	return body
}

// leadsInput is a field as the form shows it: its value and its message.
type leadsInput struct {
	leadsField
	Value   string
	Checked map[string]bool
	Error   fieldProblem
}

// DescribedBy are the ids of the input's hint and message.
func (in leadsInput) DescribedBy() string {
	var ids []string
	if in.Hint != "" {
		ids = append(ids, in.ID()+"-hint")
	}
	if in.Error.Message != "" {
		ids = append(ids, in.ID()+"-error")
	}
	return strings.Join(ids, " ")
}

// Other is a select's value that none of its options is (typed into the
// address), so that the form shows what was sent; "" otherwise.
func (in leadsInput) Other() string {
	if in.Value == "" || slices.Contains(in.Options, in.Value) {
		return ""
	}
	return in.Value
}

// inputGroup is a fieldset as the form shows it.
type inputGroup struct {
	Legend string
	Folded bool
	// Set counts the inputs with a value or a message: a folded group
	// opens when any has.
	Set    int
	Inputs []leadsInput
}

// formInputs are the groups with the query's values and the API's
// messages at their fields.
func formInputs(groups []leadsGroup, q url.Values, p apiProblem) []inputGroup {
	out := make([]inputGroup, 0, len(groups))
	for _, g := range groups {
		ig := inputGroup{Legend: g.Legend, Folded: g.Folded}
		for _, f := range g.Fields {
			in := leadsInput{leadsField: f, Value: strings.Join(q[f.Name], ", "), Error: p.At(f.Name)}
			if f.Kind == choicesField {
				in.Checked = map[string]bool{}
				for _, v := range splitList(q[f.Name]...) {
					in.Checked[v] = true
				}
			}
			if in.Value != "" || in.Error.Message != "" {
				ig.Set++
			}
			ig.Inputs = append(ig.Inputs, in)
		}
		out = append(out, ig)
	}
	return out
}
