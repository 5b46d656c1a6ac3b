package sandbox

import "strings"

// The sandbox org's schema: the standard fields Trawl's actions write, and
// two custom External ID fields a Trawl user adds (LinkedIn_URL__c on Lead
// and Contact, Trawl_Key__c on Task), as Salesforce's describe gives them.

// sfField is one field of an sObject's describe.
type sfField struct {
	Name           string          `json:"name"`
	Label          string          `json:"label"`
	Type           string          `json:"type"`
	Length         int             `json:"length"`
	Custom         bool            `json:"custom"`
	ExternalID     bool            `json:"externalId"`
	Unique         bool            `json:"unique"`
	Nillable       bool            `json:"nillable"`
	Createable     bool            `json:"createable"`
	Updateable     bool            `json:"updateable"`
	ReferenceTo    []string        `json:"referenceTo"`
	PicklistValues []sfPicklistVal `json:"picklistValues"`
	// required on create (not nillable, no default): REQUIRED_FIELD_MISSING
	required bool
	// restricted picklist: INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST
	restricted bool
	def        string
}

type sfPicklistVal struct {
	Active       bool    `json:"active"`
	DefaultValue bool    `json:"defaultValue"`
	Label        string  `json:"label"`
	ValidFor     *string `json:"validFor"`
	Value        string  `json:"value"`
}

// sfObject is an sObject of the sandbox org.
type sfObject struct {
	Name, Label, LabelPlural, KeyPrefix string
	Fields                              []sfField
}

func (o *sfObject) field(name string) *sfField {
	for i := range o.Fields {
		if strings.EqualFold(o.Fields[i].Name, name) {
			return &o.Fields[i]
		}
	}
	return nil
}

func sfPicklist(def string, values ...string) []sfPicklistVal {
	out := make([]sfPicklistVal, len(values))
	for i, v := range values {
		out[i] = sfPicklistVal{Active: true, DefaultValue: v == def, Label: v, Value: v}
	}
	return out
}

func sfText(name, label string, n int) sfField {
	return sfField{Name: name, Label: label, Type: "string", Length: n, Nillable: true, Createable: true, Updateable: true, ReferenceTo: []string{}, PicklistValues: []sfPicklistVal{}}
}

func sfTyped(name, label, typ string) sfField {
	f := sfText(name, label, 0)
	f.Type = typ
	return f
}

func sfRequired(f sfField) sfField { f.Nillable, f.required = false, true; return f }

func sfExternal(f sfField) sfField { f.Custom, f.ExternalID, f.Unique = true, true, true; return f }

func sfPick(name, label, def string, restricted bool, values ...string) sfField {
	f := sfTyped(name, label, "picklist")
	f.PicklistValues, f.restricted, f.def = sfPicklist(def, values...), restricted, def
	return f
}

func sfRef(name, label string, to ...string) sfField {
	f := sfTyped(name, label, "reference")
	f.Length, f.ReferenceTo = 18, to
	return f
}

func sfIDField() sfField {
	return sfField{Name: "Id", Label: "Record ID", Type: "id", Length: 18, ReferenceTo: []string{}, PicklistValues: []sfPicklistVal{}}
}

// salesforceSchema is the org's objects by name.
func salesforceSchema() map[string]*sfObject {
	objs := []*sfObject{
		{Name: "Lead", Label: "Lead", LabelPlural: "Leads", KeyPrefix: "00Q", Fields: []sfField{
			sfIDField(), sfText("FirstName", "First Name", 40), sfRequired(sfText("LastName", "Last Name", 80)),
			sfRequired(sfText("Company", "Company", 255)), sfTyped("Email", "Email", "email"), sfText("Title", "Title", 128),
			sfTyped("Phone", "Phone", "phone"), sfTyped("Website", "Website", "url"), sfTyped("Description", "Description", "textarea"),
			sfPick("LeadSource", "Lead Source", "", false, "Web", "Phone Inquiry", "Partner Referral", "Purchased List", "Other"),
			sfPick("Status", "Lead Status", "Open - Not Contacted", true, "Open - Not Contacted", "Working - Contacted", "Closed - Converted", "Closed - Not Converted"),
			sfPick("Industry", "Industry", "", false, "Agriculture", "Banking", "Consulting", "Education", "Technology", "Other"),
			sfExternal(sfTyped("LinkedIn_URL__c", "LinkedIn URL", "url")),
		}},
		{Name: "Contact", Label: "Contact", LabelPlural: "Contacts", KeyPrefix: "003", Fields: []sfField{
			sfIDField(), sfText("FirstName", "First Name", 40), sfRequired(sfText("LastName", "Last Name", 80)),
			sfTyped("Email", "Email", "email"), sfText("Title", "Title", 128), sfRef("AccountId", "Account ID", "Account"),
			sfExternal(sfTyped("LinkedIn_URL__c", "LinkedIn URL", "url")),
		}},
		{Name: "Account", Label: "Account", LabelPlural: "Accounts", KeyPrefix: "001", Fields: []sfField{
			sfIDField(), sfRequired(sfText("Name", "Account Name", 255)), sfTyped("Website", "Website", "url"),
			sfTyped("NumberOfEmployees", "Employees", "int"),
			sfPick("Industry", "Industry", "", false, "Agriculture", "Banking", "Consulting", "Education", "Technology", "Other"),
			sfPick("Type", "Account Type", "", false, "Prospect", "Customer - Direct", "Customer - Channel", "Partner", "Other"),
		}},
		{Name: "Task", Label: "Task", LabelPlural: "Tasks", KeyPrefix: "00T", Fields: []sfField{
			sfIDField(), sfRef("WhoId", "Name ID", "Contact", "Lead"), sfRef("WhatId", "Related To ID", "Account"),
			sfTyped("Subject", "Subject", "combobox"), sfTyped("Description", "Description", "textarea"),
			sfTyped("ActivityDate", "Due Date Only", "date"),
			sfPick("Status", "Status", "Not Started", true, "Not Started", "In Progress", "Completed", "Waiting on someone else", "Deferred"),
			sfPick("Priority", "Priority", "Normal", true, "High", "Normal", "Low"),
			sfExternal(sfText("Trawl_Key__c", "Trawl Key", 255)),
		}},
	}
	out := make(map[string]*sfObject, len(objs))
	for _, o := range objs {
		out[strings.ToLower(o.Name)] = o
	}
	return out
}

// sfIDChars are the digits of a Salesforce id.
const sfIDChars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// salesforceID is the 18-character id of the n-th record of an object
// (prefix 00Q, 00T, 001, 003, 00D): prefix, pod "5g", the number in base 62
// to 15 characters, then Salesforce's 3-character case-safe suffix.
func salesforceID(prefix string, n uint64) string {
	b := []byte(prefix + "5g" + strings.Repeat("0", 10))
	for i := len(b) - 1; i >= 5 && n > 0; i-- {
		b[i] = sfIDChars[n%62]
		n /= 62
	}
	return string(b) + salesforceIDSuffix(string(b))
}

// salesforceIDSuffix is the case-safe suffix of a 15-character id: one
// character per 5, whose bits say which of them are upper case.
func salesforceIDSuffix(id15 string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"
	out := make([]byte, 3)
	for chunk := 0; chunk < 3; chunk++ {
		bits := 0
		for i := 0; i < 5; i++ {
			if c := id15[chunk*5+i]; c >= 'A' && c <= 'Z' {
				bits |= 1 << i
			}
		}
		out[chunk] = alphabet[bits]
	}
	return string(out)
}

// salesforceIDOK says s has the shape of a 15- or 18-character id whose
// suffix, if any, is right.
func salesforceIDOK(s string) bool {
	if len(s) != 15 && len(s) != 18 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(sfIDChars, rune(s[i])) {
			return false
		}
	}
	return len(s) == 15 || salesforceIDSuffix(s[:15]) == s[15:]
}
