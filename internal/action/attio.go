package action

// Attio actions: they act through the account's Attio connection
// (internal/integration), on Attio's REST API v2.
const (
	KindAttioAssertPerson = "attio_assert_person"
	KindAttioAddToList    = "attio_add_to_list"
)

// attioSpecs are the Attio actions.
func attioSpecs() []Spec {
	return []Spec{
		{
			Kind: KindAttioAssertPerson, Name: "Assert Attio person", Category: CategoryCRM, Connection: "attio",
			Description: "Creates or updates an Attio person matched by email address (PUT /v2/objects/people/records?matching_attribute=email_addresses): running it again updates the same record. Empty inputs leave the person's values as they are.",
			Inputs: []Input{
				{Name: "email", Title: "Email", Required: true, Type: TypeString, Description: "The person's email address, which they are matched by."},
				{Name: "first_name", Title: "First name", Type: TypeString},
				{Name: "last_name", Title: "Last name", Type: TypeString},
				{Name: "full_name", Title: "Full name", Type: TypeString, Description: "Default: first and last name."},
				{Name: "job_title", Title: "Job title", Type: TypeString},
				{Name: "linkedin", Title: "LinkedIn", Type: TypeString, Description: "The person's LinkedIn URL."},
				{Name: "values", Title: "Other values", Type: TypeObject, Description: "Other attribute values by slug, as Attio takes them, e.g. {\"lead_source\": \"Trawl\"} (GET /v1/integrations/attio/crm-fields)."},
			},
			Outputs: object(map[string]any{
				"record_id": typed("string", "The person's record id (a UUID)."),
				"web_url":   typed("string", "The record's page in Attio."),
			}, "record_id"),
			Run: attioAssertPerson,
		},
		{
			Kind: KindAttioAddToList, Name: "Add to Attio list", Category: CategoryCRM, Connection: "attio",
			Description: "Adds a record to an Attio list, or updates its entry there (PUT /v2/lists/{list}/entries, by parent record): running it again never adds a second entry.",
			Inputs: []Input{
				{Name: "list", Title: "List", Required: true, Type: TypeString, Description: "The list's slug or id."},
				{Name: "record_id", Title: "Record", Required: true, Type: TypeString, Description: "The record to add, e.g. {{ steps.person.output.record_id }}."},
				{Name: "parent_object", Title: "Record's object", Type: TypeString, Description: "The record's object: people (default) or companies."},
				{Name: "entry_values", Title: "Entry values", Type: TypeObject, Description: "Values of the list's own attributes by slug, e.g. {\"stage\": \"New\"}."},
			},
			Outputs: object(map[string]any{
				"entry_id": typed("string", "The list entry's id (a UUID)."),
			}, "entry_id"),
			Run: attioAddToList,
		},
	}
}
