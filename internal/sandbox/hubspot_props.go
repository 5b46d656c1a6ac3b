package sandbox

import "strings"

// The default properties of the CRM objects the sandbox's HubSpot serves,
// as GET /crm/v3/properties/{objectType} describes them (name, label, type,
// fieldType, options of enumerations). A realistic subset of a new
// portal's: enough for lookups and for validating writes.

// hubSpotOption is one option of an enumeration property.
type hubSpotOption struct {
	Label        string `json:"label"`
	Value        string `json:"value"`
	Description  string `json:"description"`
	DisplayOrder int    `json:"displayOrder"`
	Hidden       bool   `json:"hidden"`
}

// hubSpotProperty is a property's definition, the documented shape.
type hubSpotProperty struct {
	Name                 string                  `json:"name"`
	Label                string                  `json:"label"`
	Type                 string                  `json:"type"`
	FieldType            string                  `json:"fieldType"`
	Description          string                  `json:"description"`
	GroupName            string                  `json:"groupName"`
	Options              []hubSpotOption         `json:"options"`
	DisplayOrder         int                     `json:"displayOrder"`
	Calculated           bool                    `json:"calculated"`
	ExternalOptions      bool                    `json:"externalOptions"`
	HasUniqueValue       bool                    `json:"hasUniqueValue"`
	Hidden               bool                    `json:"hidden"`
	HubspotDefined       bool                    `json:"hubspotDefined"`
	FormField            bool                    `json:"formField"`
	ModificationMetadata hubSpotPropertyMetadata `json:"modificationMetadata"`
	CreatedAt            string                  `json:"createdAt"`
	UpdatedAt            string                  `json:"updatedAt"`
	Archived             bool                    `json:"archived"`
}

type hubSpotPropertyMetadata struct {
	Archivable         bool `json:"archivable"`
	ReadOnlyDefinition bool `json:"readOnlyDefinition"`
	ReadOnlyValue      bool `json:"readOnlyValue"`
}

// hubSpotPropertyCreated is when the default properties were defined.
const hubSpotPropertyCreated = "2019-08-06T02:41:52.000Z"

// prop builds a property of kind: text, textarea, number, date (datetime),
// phone, enum, bool, readonly (a read-only datetime) or id.
func prop(name, label, kind, group string, options ...string) hubSpotProperty {
	p := hubSpotProperty{Name: name, Label: label, GroupName: group, HubspotDefined: true, FormField: true,
		ModificationMetadata: hubSpotPropertyMetadata{ReadOnlyDefinition: true},
		CreatedAt:            hubSpotPropertyCreated, UpdatedAt: hubSpotPropertyCreated, Options: []hubSpotOption{}}
	switch kind {
	case "text":
		p.Type, p.FieldType = "string", "text"
	case "textarea":
		p.Type, p.FieldType = "string", "textarea"
	case "html":
		p.Type, p.FieldType = "string", "html"
	case "phone":
		p.Type, p.FieldType = "string", "phonenumber"
	case "number":
		p.Type, p.FieldType = "number", "number"
	case "date":
		p.Type, p.FieldType = "datetime", "date"
	case "enum":
		p.Type, p.FieldType = "enumeration", "select"
		// options are "value=Label" pairs.
		for i, o := range options {
			value, label, _ := strings.Cut(o, "=")
			p.Options = append(p.Options, hubSpotOption{Label: label, Value: value, DisplayOrder: i})
		}
	case "bool":
		p.Type, p.FieldType = "bool", "booleancheckbox"
		p.Options = []hubSpotOption{{Label: "Yes", Value: "true"}, {Label: "No", Value: "false", DisplayOrder: 1}}
	case "readonly", "id":
		p.Type, p.FieldType = "datetime", "date"
		if kind == "id" {
			p.Type, p.FieldType = "number", "number"
		}
		p.FormField = false
		p.ModificationMetadata.ReadOnlyValue = true
	}
	return p
}

// hubSpotProperties are the default properties of each object type.
func hubSpotProperties() map[string][]hubSpotProperty {
	hubSpotLifecycle := []string{"subscriber=Subscriber", "lead=Lead", "marketingqualifiedlead=Marketing Qualified Lead",
		"salesqualifiedlead=Sales Qualified Lead", "opportunity=Opportunity", "customer=Customer", "evangelist=Evangelist", "other=Other"}
	hubSpotIndustries := []string{"ACCOUNTING=Accounting", "AIRLINES_AVIATION=Airlines/Aviation", "BANKING=Banking",
		"BIOTECHNOLOGY=Biotechnology", "COMPUTER_SOFTWARE=Computer Software", "CONSUMER_GOODS=Consumer Goods",
		"EDUCATION_MANAGEMENT=Education Management", "FINANCIAL_SERVICES=Financial Services", "HOSPITAL_HEALTH_CARE=Hospital & Health Care",
		"INFORMATION_TECHNOLOGY_AND_SERVICES=Information Technology and Services", "INTERNET=Internet", "MARKETING_AND_ADVERTISING=Marketing and Advertising",
		"RETAIL=Retail", "TELECOMMUNICATIONS=Telecommunications"}

	contacts := []hubSpotProperty{
		prop("email", "Email", "text", "contactinformation"),
		prop("firstname", "First Name", "text", "contactinformation"),
		prop("lastname", "Last Name", "text", "contactinformation"),
		prop("company", "Company Name", "text", "contactinformation"),
		prop("jobtitle", "Job Title", "text", "contactinformation"),
		prop("phone", "Phone Number", "phone", "contactinformation"),
		prop("mobilephone", "Mobile Phone Number", "phone", "contactinformation"),
		prop("website", "Website URL", "text", "contactinformation"),
		prop("hs_linkedin_url", "LinkedIn URL", "text", "social_media_information"),
		prop("city", "City", "text", "contactinformation"),
		prop("state", "State/Region", "text", "contactinformation"),
		prop("country", "Country/Region", "text", "contactinformation"),
		prop("zip", "Postal Code", "text", "contactinformation"),
		prop("industry", "Industry", "text", "contactinformation"),
		prop("lifecyclestage", "Lifecycle Stage", "enum", "contactinformation", hubSpotLifecycle...),
		prop("hs_lead_status", "Lead Status", "enum", "sales_properties", "NEW=New", "OPEN=Open", "IN_PROGRESS=In Progress",
			"OPEN_DEAL=Open Deal", "UNQUALIFIED=Unqualified", "ATTEMPTED_TO_CONTACT=Attempted to Contact", "CONNECTED=Connected", "BAD_TIMING=Bad Timing"),
		prop("hubspot_owner_id", "Contact owner", "text", "sales_properties"),
		prop("hs_email_optout", "Unsubscribed from all email", "bool", "contactinformation"),
		prop("message", "Message", "textarea", "contactinformation"),
		prop("createdate", "Create Date", "readonly", "contactinformation"),
		prop("lastmodifieddate", "Last Modified Date", "readonly", "contactinformation"),
		prop("hs_object_id", "Record ID", "id", "contactinformation"),
	}
	contacts[0].HasUniqueValue = true
	companies := []hubSpotProperty{
		prop("name", "Company name", "text", "companyinformation"),
		prop("domain", "Company Domain Name", "text", "companyinformation"),
		prop("website", "Website URL", "text", "companyinformation"),
		prop("industry", "Industry", "enum", "companyinformation", hubSpotIndustries...),
		prop("phone", "Phone Number", "phone", "companyinformation"),
		prop("city", "City", "text", "companyinformation"),
		prop("state", "State/Region", "text", "companyinformation"),
		prop("country", "Country/Region", "text", "companyinformation"),
		prop("numberofemployees", "Number of Employees", "number", "companyinformation"),
		prop("annualrevenue", "Annual Revenue", "number", "companyinformation"),
		prop("description", "Description", "textarea", "companyinformation"),
		prop("linkedin_company_page", "LinkedIn Company Page", "text", "social_media_information"),
		prop("lifecyclestage", "Lifecycle Stage", "enum", "companyinformation", hubSpotLifecycle...),
		prop("type", "Type", "enum", "companyinformation", "PROSPECT=Prospect", "PARTNER=Partner", "RESELLER=Reseller", "VENDOR=Vendor", "OTHER=Other"),
		prop("hubspot_owner_id", "Company owner", "text", "companyinformation"),
		prop("createdate", "Create Date", "readonly", "companyinformation"),
		prop("hs_lastmodifieddate", "Last Modified Date", "readonly", "companyinformation"),
		prop("hs_object_id", "Record ID", "id", "companyinformation"),
	}
	notes := []hubSpotProperty{
		prop("hs_note_body", "Note body", "html", "note"),
		prop("hs_timestamp", "Activity date", "date", "note"),
		prop("hubspot_owner_id", "Activity assigned to", "text", "note"),
		prop("hs_attachment_ids", "Attached file IDs", "text", "note"),
		prop("hs_createdate", "Create date", "readonly", "note"),
		prop("hs_lastmodifieddate", "Last modified date", "readonly", "note"),
		prop("hs_object_id", "Record ID", "id", "note"),
	}
	tasks := []hubSpotProperty{
		prop("hs_task_subject", "Task title", "text", "task"),
		prop("hs_task_body", "Notes", "html", "task"),
		prop("hs_timestamp", "Due date", "date", "task"),
		prop("hs_task_status", "Task status", "enum", "task", "NOT_STARTED=Not started", "IN_PROGRESS=In progress",
			"WAITING=Waiting", "COMPLETED=Completed", "DEFERRED=Deferred"),
		prop("hs_task_priority", "Priority", "enum", "task", "NONE=None", "LOW=Low", "MEDIUM=Medium", "HIGH=High"),
		prop("hs_task_type", "Task type", "enum", "task", "EMAIL=Email", "CALL=Call", "TODO=To-do"),
		prop("hubspot_owner_id", "Assigned to", "text", "task"),
		prop("hs_createdate", "Create date", "readonly", "task"),
		prop("hs_lastmodifieddate", "Last modified date", "readonly", "task"),
		prop("hs_object_id", "Record ID", "id", "task"),
	}
	return map[string][]hubSpotProperty{"contacts": contacts, "companies": companies, "notes": notes, "tasks": tasks}
}

// hubSpotObjectType is the canonical name of an object type as paths may
// give it: plural, singular or the object type id (0-1 contacts).
func hubSpotObjectType(s string) (string, bool) {
	switch strings.ToLower(s) {
	case "contacts", "contact", "0-1":
		return "contacts", true
	case "companies", "company", "0-2":
		return "companies", true
	case "notes", "note", "0-46":
		return "notes", true
	case "tasks", "task", "0-27":
		return "tasks", true
	}
	return "", false
}

// hubSpotAssociationType is the HUBSPOT_DEFINED default association
// type id from → to (the associations v4 docs' table), 0 when none.
func hubSpotAssociationType(from, to string) int {
	switch from + ">" + to {
	case "contacts>companies":
		return 279
	case "companies>contacts":
		return 280
	case "notes>contacts":
		return 202
	case "contacts>notes":
		return 201
	case "notes>companies":
		return 190
	case "companies>notes":
		return 189
	case "tasks>contacts":
		return 204
	case "contacts>tasks":
		return 203
	case "tasks>companies":
		return 192
	case "companies>tasks":
		return 191
	}
	return 0
}
