package enrich

import (
	"encoding/json"
	"fmt"
)

// Person is the part of a PDL person record Trawl uses (field names as in PDL's person schema).
type Person struct {
	ID                string   `json:"id"`
	FullName          string   `json:"full_name"`
	FirstName         string   `json:"first_name"`
	LastName          string   `json:"last_name"`
	Sex               string   `json:"sex"`
	Headline          string   `json:"headline"`
	Summary           string   `json:"summary"`
	JobTitle          string   `json:"job_title"`
	JobTitleRole      string   `json:"job_title_role"`
	JobTitleSubRole   string   `json:"job_title_sub_role"`
	JobTitleLevels    []string `json:"job_title_levels"`
	JobCompanyName    string   `json:"job_company_name"`
	JobCompanyWebsite string   `json:"job_company_website"`
	Industry          string   `json:"industry"`
	LocationName      string   `json:"location_name"`
	LocationCountry   string   `json:"location_country"`
	LinkedinURL       string   `json:"linkedin_url"`
	LinkedinUsername  string   `json:"linkedin_username"`
	LinkedinID        string   `json:"linkedin_id"`
	// WorkEmail is PDL's work_email: an address, or "" when PDL has none
	// or the plan shows only that one exists (the boolean true).
	WorkEmail  string   `json:"work_email"`
	Languages  []string `json:"languages"`
	Experience []Job    `json:"experience"`
}

// Job is one entry of a PDL record's experience.
type Job struct {
	CompanyName    string   `json:"company_name"`
	CompanyWebsite string   `json:"company_website"`
	Title          string   `json:"title"`
	TitleRole      string   `json:"title_role"`
	LocationNames  []string `json:"location_names"`
	StartDate      string   `json:"start_date"` // YYYY-MM or YYYY
	EndDate        string   `json:"end_date"`   // "" while current
	IsPrimary      bool     `json:"is_primary"`
}

// UnmarshalJSON reads a PDL person leniently. PDL writes null for missing fields, older
// records say gender where newer say sex, languages are objects ({name, proficiency}), and
// on some plans a field you may not see is the boolean true; none of these fail the record.
func (p *Person) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("enrich: person: %w", err)
	}
	if m == nil {
		return nil // null: leave p as it is, like encoding/json does
	}
	*p = Person{
		ID: str(m["id"]), FullName: str(m["full_name"]), FirstName: str(m["first_name"]), LastName: str(m["last_name"]),
		Sex: str(m["sex"]), Headline: str(m["headline"]), Summary: str(m["summary"]),
		JobTitle: str(m["job_title"]), JobTitleRole: str(m["job_title_role"]), JobTitleSubRole: str(m["job_title_sub_role"]),
		JobTitleLevels: strs(m["job_title_levels"]), JobCompanyName: str(m["job_company_name"]),
		JobCompanyWebsite: str(m["job_company_website"]), Industry: str(m["industry"]),
		LocationName: str(m["location_name"]), LocationCountry: str(m["location_country"]),
		LinkedinURL: str(m["linkedin_url"]), LinkedinUsername: str(m["linkedin_username"]), LinkedinID: str(m["linkedin_id"]),
		WorkEmail: str(m["work_email"]),
	}
	if p.Sex == "" {
		p.Sex = str(m["gender"])
	}
	if langs, ok := m["languages"].([]any); ok {
		for _, l := range langs {
			switch v := l.(type) {
			case string:
				p.Languages = append(p.Languages, v)
			case map[string]any:
				if name := str(v["name"]); name != "" {
					p.Languages = append(p.Languages, name)
				}
			}
		}
	}
	if exps, ok := m["experience"].([]any); ok {
		for _, e := range exps {
			if em, ok := e.(map[string]any); ok {
				p.Experience = append(p.Experience, experienceFrom(em))
			}
		}
	}
	return nil
}

// experienceFrom reads {company: {name, website}, title: {name, role}, location_names,
// start_date, end_date, is_primary}; a title or company given as a plain string is accepted too.
func experienceFrom(m map[string]any) Job {
	e := Job{LocationNames: strs(m["location_names"]), StartDate: str(m["start_date"]),
		EndDate: str(m["end_date"]), IsPrimary: m["is_primary"] == true}
	switch c := m["company"].(type) {
	case map[string]any:
		e.CompanyName, e.CompanyWebsite = str(c["name"]), str(c["website"])
	case string:
		e.CompanyName = c
	}
	switch t := m["title"].(type) {
	case map[string]any:
		e.Title, e.TitleRole = str(t["name"]), str(t["role"])
	case string:
		e.Title = t
	}
	// The flat names are this package's own JSON, so a marshalled Person reads back.
	if e.CompanyName == "" {
		e.CompanyName, e.CompanyWebsite = str(m["company_name"]), str(m["company_website"])
	}
	if e.TitleRole == "" {
		e.TitleRole = str(m["title_role"])
	}
	return e
}

// str returns v when it is a string, "" for null, booleans, numbers and anything else.
func str(v any) string {
	s, _ := v.(string)
	return s
}

// strs returns the strings of a list (other elements skipped); nil when v is not a list.
func strs(v any) []string {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
