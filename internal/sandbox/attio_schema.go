package sandbox

import (
	"fmt"
	"strings"
)

// The sandbox workspace's schema: the standard attributes of people and
// companies Attio creates in every workspace (a few custom selects added),
// and two lists, as Attio's API describes them.

// attioAttr is an attribute of an object or a list.
type attioAttr struct {
	Slug, Title, Type string
	Multi, Unique     bool
	System, Required  bool
	Options           []string // select options, by title
}

// attioObjectSchema is an object (people, companies) or a list.
type attioObjectSchema struct {
	Slug, Singular, Plural string
	Attrs                  []attioAttr
}

func (o *attioObjectSchema) attr(slug string) *attioAttr {
	for i := range o.Attrs {
		if o.Attrs[i].Slug == slug {
			return &o.Attrs[i]
		}
	}
	return nil
}

var attioEmployeeRanges = []string{"1-10", "11-50", "51-250", "251-1K", "1K-5K", "5K-10K", "10K-50K", "50K-100K", "100K+"}

func attioObjects() map[string]*attioObjectSchema {
	return map[string]*attioObjectSchema{
		"people": {Slug: "people", Singular: "Person", Plural: "People", Attrs: []attioAttr{
			{Slug: "record_id", Title: "Record ID", Type: "text", Unique: true, System: true},
			{Slug: "name", Title: "Name", Type: "personal-name", System: true},
			{Slug: "email_addresses", Title: "Email addresses", Type: "email-address", Multi: true, Unique: true, System: true},
			{Slug: "description", Title: "Description", Type: "text", System: true},
			{Slug: "company", Title: "Company", Type: "record-reference", System: true},
			{Slug: "job_title", Title: "Job title", Type: "text", System: true},
			{Slug: "phone_numbers", Title: "Phone numbers", Type: "phone-number", Multi: true, System: true},
			{Slug: "linkedin", Title: "LinkedIn", Type: "text", System: true},
			{Slug: "twitter", Title: "Twitter", Type: "text", System: true},
			{Slug: "lead_source", Title: "Lead source", Type: "select", Options: []string{"Trawl", "Website", "Referral", "Event"}},
		}},
		"companies": {Slug: "companies", Singular: "Company", Plural: "Companies", Attrs: []attioAttr{
			{Slug: "record_id", Title: "Record ID", Type: "text", Unique: true, System: true},
			{Slug: "name", Title: "Name", Type: "text", System: true},
			{Slug: "domains", Title: "Domains", Type: "domain", Multi: true, Unique: true, System: true},
			{Slug: "description", Title: "Description", Type: "text", System: true},
			{Slug: "categories", Title: "Categories", Type: "select", Multi: true, System: true, Options: []string{"B2B", "B2C", "SaaS", "E-commerce", "Enterprise"}},
			{Slug: "employee_range", Title: "Employee range", Type: "select", System: true, Options: attioEmployeeRanges},
			{Slug: "linkedin", Title: "LinkedIn", Type: "text", System: true},
		}},
	}
}

// attioLists are the lists of every sandbox workspace, by slug.
func attioLists() map[string]*attioObjectSchema {
	return map[string]*attioObjectSchema{
		"prospects": {Slug: "prospects", Singular: "Prospects", Plural: "people", Attrs: []attioAttr{
			{Slug: "stage", Title: "Stage", Type: "select", Options: []string{"New", "Contacted", "Replied", "Qualified"}},
			{Slug: "note", Title: "Note", Type: "text"},
		}},
		"target_accounts": {Slug: "target_accounts", Singular: "Target accounts", Plural: "companies", Attrs: []attioAttr{
			{Slug: "tier", Title: "Tier", Type: "select", Options: []string{"Tier 1", "Tier 2", "Tier 3"}},
		}},
	}
}

// attioUUID is a version-4-shaped UUID derived from the parts.
func attioUUID(parts ...string) string {
	a := hashString(11, strings.Join(parts, "\x00"))
	b := hashString(12, strings.Join(parts, "\x00"))
	return fmt.Sprintf("%08x-%04x-4%03x-%x%03x-%012x", uint32(a), uint16(a>>32), uint16(a>>48)&0xfff,
		8+(b>>62), uint16(b)&0xfff, (b>>16)&0xffffffffffff)
}
