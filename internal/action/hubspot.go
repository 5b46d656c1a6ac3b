package action

// The HubSpot actions (docs/integrations/hubspot.md): they act through
// the account's hubspot connection (a private app's token), on HubSpot's
// CRM API v3 and associations API v4.
const (
	KindHubSpotUpsertContact    = "hubspot_upsert_contact"
	KindHubSpotAssociateCompany = "hubspot_associate_company"
	KindHubSpotCreateNote       = "hubspot_create_note"
	KindHubSpotCreateTask       = "hubspot_create_task"
)

// hubSpotSpecs are the HubSpot actions. Like the other messaging and CRM
// steps they cost the workflow execution's price only (CreditCost 0).
func hubSpotSpecs() []Spec {
	return []Spec{
		{
			Kind: KindHubSpotUpsertContact, Name: "Create or update HubSpot contact", Category: CategoryCRM, Connection: hubSpotType,
			Description: "Creates the HubSpot contact of an email address, or updates it when the portal has one (batch upsert keyed by email: running it again updates the same contact). Blank inputs are left out; an empty string in properties clears a property.",
			Inputs: []Input{
				{Name: "email", Title: "Email", Required: true, Type: TypeString, Description: "The contact's email address, its key."},
				{Name: "firstname", Title: "First name", Type: TypeString},
				{Name: "lastname", Title: "Last name", Type: TypeString},
				{Name: "company", Title: "Company name", Type: TypeString, Description: "The contact's company property (text); hubspot_associate_company links a company record."},
				{Name: "jobtitle", Title: "Job title", Type: TypeString},
				{Name: "phone", Title: "Phone", Type: TypeString},
				{Name: "website", Title: "Website", Type: TypeString},
				{Name: "linkedin_url", Title: "LinkedIn URL", Type: TypeString, Description: "Written to HubSpot's hs_linkedin_url contact property (LinkedIn URL)."},
				{Name: "properties", Title: "Other properties", Type: TypeObject, Description: "HubSpot property names (internal names, GET /v1/integrations/hubspot/crm-fields) to values: strings, numbers, booleans, or arrays of strings for multiple checkboxes. The named inputs above win over the same names here."},
			},
			Outputs: object(map[string]any{
				"id":         typed("string", "The contact's record id."),
				"created":    typed("boolean", "True when the contact was created, false when it was updated."),
				"properties": typed("object", "The contact's properties HubSpot answered, by name."),
			}, "id", "created"),
			Run: hubSpotUpsertContact,
		},
		{
			Kind: KindHubSpotAssociateCompany, Name: "Associate HubSpot company", Category: CategoryCRM, Connection: hubSpotType,
			Description: "Links a contact to a company: the company of company_id, or the one whose domain is company_domain, created when the portal has none. Associating again changes nothing.",
			Inputs: []Input{
				{Name: "contact_id", Title: "Contact id", Required: true, Type: TypeString, Description: "The contact's record id (hubspot_upsert_contact's id)."},
				{Name: "company_domain", Title: "Company domain", Type: TypeString, Description: "The company's website domain (acme.com; a URL is reduced to its host). Needed unless company_id is given."},
				{Name: "company_id", Title: "Company id", Type: TypeString, Description: "The company's record id, instead of company_domain."},
				{Name: "company_name", Title: "Company name", Type: TypeString, Description: "The name of a company created for company_domain."},
			},
			Check: func(in map[string]any) []Problem {
				_, domain := in["company_domain"]
				_, id := in["company_id"]
				switch {
				case domain && id:
					return []Problem{problemf("", "give company_domain or company_id, not both")}
				case !domain && !id:
					return []Problem{problemf("company_domain", "is required unless company_id is given")}
				}
				return nil
			},
			Outputs: object(map[string]any{
				"company_id":      typed("string", "The company's record id."),
				"company_created": typed("boolean", "True when the step created the company."),
				"associated":      typed("boolean", "True once the contact and the company are associated."),
			}, "company_id", "company_created", "associated"),
			Run: hubSpotAssociateCompany,
		},
		{
			Kind: KindHubSpotCreateNote, Name: "Add HubSpot note", Category: CategoryCRM, Connection: hubSpotType,
			Description: "Adds a note to a contact's timeline. A note with the same body already on the contact is not added again (a retried step does not duplicate it).",
			Inputs: []Input{
				{Name: "contact_id", Title: "Contact id", Required: true, Type: TypeString},
				{Name: "body", Title: "Body", Required: true, Type: TypeString, Description: "The note's text (HubSpot renders HTML), at most 65,536 characters."},
				{Name: "timestamp", Title: "Time", Type: TypeString, Description: "Where the note sits on the timeline: ISO 8601 or Unix milliseconds. Default: when the step runs."},
			},
			Outputs: object(map[string]any{
				"id":      typed("string", "The note's record id."),
				"created": typed("boolean", "False when the contact already had this note."),
			}, "id"),
			Run: hubSpotCreateNote,
		},
		{
			Kind: KindHubSpotCreateTask, Name: "Create HubSpot task", Category: CategoryCRM, Connection: hubSpotType,
			Description: "Creates a task associated with a contact. An open task of the same subject (and due time, when given) already on the contact is not created again.",
			Inputs: []Input{
				{Name: "contact_id", Title: "Contact id", Required: true, Type: TypeString},
				{Name: "subject", Title: "Subject", Required: true, Type: TypeString},
				{Name: "body", Title: "Notes", Type: TypeString},
				{Name: "due", Title: "Due", Type: TypeString, Description: "ISO 8601 or Unix milliseconds. Default: when the step runs."},
				{Name: "priority", Title: "Priority", Type: TypeEnum, Options: []string{"LOW", "MEDIUM", "HIGH"}},
				{Name: "status", Title: "Status", Type: TypeEnum, Options: []string{"NOT_STARTED", "IN_PROGRESS", "WAITING", "COMPLETED", "DEFERRED"}, Description: "Default NOT_STARTED."},
				{Name: "task_type", Title: "Type", Type: TypeEnum, Options: []string{"TODO", "EMAIL", "CALL"}, Description: "Default TODO."},
			},
			Outputs: object(map[string]any{
				"id":      typed("string", "The task's record id."),
				"created": typed("boolean", "False when the contact already had this open task."),
			}, "id"),
			Run: hubSpotCreateTask,
		},
	}
}
