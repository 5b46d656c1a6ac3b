package console

import (
	"encoding/json"
	"net/url"
	"testing"
)

// The Leads form's query becomes the API's body by each field's type only:
// lists split on commas and newlines, numbers sent as typed, a value that is
// no number sent as text for the API to refuse, empty fields left out.
func TestFormBody(t *testing.T) {
	q := url.Values{
		"engaged_with_keywords":       {"sales, revops\nCRM ,"},
		"engaged_with_days":           {" 30 "},
		"engaged_with_topic_strength": {"two"},
		"job_titles":                  {""},
		"company_sizes":               {"1-10", "51-200"},
		"page_size":                   {"25"},
		"page":                        {"1.5"},
		"includes":                    {"first_name", "post.url"},
		"unknown":                     {"ignored"},
	}
	b, err := json.Marshal(formBody(mappingGroups(), q))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"company_sizes":["1-10","51-200"],"engaged_with_days":30,"engaged_with_keywords":["sales","revops","CRM"],"engaged_with_topic_strength":"two","includes":["first_name","post.url"],"page":1.5,"page_size":25}`
	if string(b) != want {
		t.Errorf("body = %s\nwant   %s", b, want)
	}
	if b, _ := json.Marshal(formBody(creatorsGroups(), url.Values{"followers": {"1000-5000, 10000+"}, "includes": {"first_name"}})); string(b) != `{"followers":["1000-5000","10000+"]}` {
		t.Errorf("creators body = %s, want the followers and no includes (creators take none)", b)
	}
	for _, v := range []string{"true", "null", `"7"`, "[7]", "0x1f", "+3"} {
		if got := formBody(creatorsGroups(), url.Values{"page": {v}})["page"]; got != v {
			t.Errorf("page %q is sent as %#v, want the text as typed", v, got)
		}
	}
}

// The form shows the query's values back, and the API's messages at their
// inputs; a folded group counts what is set in it.
func TestFormInputs(t *testing.T) {
	p := apiAnswer{Status: 400, Body: []byte(`{"success":false,"message":"x","error":{"code":"VALIDATION_ERROR","message":"The request is invalid.",
		"details":{"fields":[{"field":"body.location_country[1]","message":"\"Atlantis\" is not a country"}]}}}`)}.Problem()
	groups := formInputs(mappingGroups(), url.Values{"location_country": {"US, Atlantis"}, "company_sizes": {"11-50"}}, p)
	var found bool
	for _, g := range groups {
		for _, in := range g.Inputs {
			switch in.Name {
			case "location_country":
				found = true
				if in.Value != "US, Atlantis" || in.Error.Message != `"Atlantis" is not a country` || in.DescribedBy() != "location_country-hint location_country-error" {
					t.Errorf("location_country = %+v, described by %q", in, in.DescribedBy())
				}
				if !g.Folded || g.Set != 1 {
					t.Errorf("the People group: folded %v, %d set", g.Folded, g.Set)
				}
			case "company_sizes":
				if !in.Checked["11-50"] || in.Checked["1-10"] {
					t.Errorf("company_sizes checked = %v", in.Checked)
				}
			}
		}
	}
	if !found {
		t.Fatal("no location_country input")
	}
}
