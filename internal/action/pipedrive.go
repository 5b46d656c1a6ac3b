package action

// Pipedrive action kinds.
const (
	KindPipedriveUpsertPerson = "pipedrive_upsert_person"
	KindPipedriveCreateLead   = "pipedrive_create_lead"
	KindPipedriveAddNote      = "pipedrive_add_note"
)

// pipedriveSpecs are the Pipedrive actions.
func pipedriveSpecs() []Spec {
	return []Spec{
		{
			Kind: KindPipedriveUpsertPerson, Name: "Upsert Pipedrive person", Category: CategoryCRM, Connection: "pipedrive",
			Description: "Finds the person of the connected Pipedrive company by exact email (GET /v1/persons/search) and updates them (PUT /v1/persons/{id}), or creates them (POST /v1/persons). org_name links the organization of that exact name, created when missing.",
			Inputs: []Input{
				{Name: "email", Title: "Email", Required: true, Type: TypeString},
				{Name: "name", Title: "Name", Type: TypeString, Description: "Required when the person is created."},
				{Name: "phone", Title: "Phone", Type: TypeString},
				{Name: "org_name", Title: "Organization", Type: TypeString, Description: "The organization's exact name; created when missing."},
				{Name: "fields", Title: "Custom fields", Type: TypeObject, Description: "Custom field key (GET /v1/integrations/pipedrive/crm-fields) → value; enum and set fields take option ids."},
			},
			Outputs: object(map[string]any{
				"id":      typed("number", "The person's id."),
				"created": typed("boolean", "True when the person was created, false when updated."),
				"org_id":  typed("number", "The linked organization's id, with org_name."),
			}, "id", "created"),
			Run: pipedriveUpsertPersonRun,
		},
		{
			Kind: KindPipedriveCreateLead, Name: "Create Pipedrive lead", Category: CategoryCRM, Connection: "pipedrive",
			Description: "Adds a lead linked to a person or an organization (POST /v1/leads). A lead of the same title already linked to the same person (or organization) is answered instead of a second one (GET /v1/leads/search), so a retried step does not duplicate it.",
			Inputs: []Input{
				{Name: "title", Title: "Title", Required: true, Type: TypeString},
				{Name: "person_id", Title: "Person id", Type: TypeNumber, Description: "Required unless organization_id is given."},
				{Name: "organization_id", Title: "Organization id", Type: TypeNumber},
			},
			Check: func(in map[string]any) []Problem {
				_, p := in["person_id"]
				_, o := in["organization_id"]
				if !p && !o {
					return []Problem{problemf("person_id", "is required unless organization_id is given")}
				}
				return nil
			},
			Outputs: object(map[string]any{
				"id":      typed("string", "The lead's id (a UUID)."),
				"created": typed("boolean", "False when the same lead already existed."),
			}, "id", "created"),
			Run: pipedriveCreateLeadRun,
		},
		{
			Kind: KindPipedriveAddNote, Name: "Add Pipedrive note", Category: CategoryCRM, Connection: "pipedrive",
			Description: "Adds a note to a person, a lead or a deal (POST /v1/notes). A note of the same content already on the same record is answered instead of a second one (GET /v1/notes), so a retried step does not duplicate it.",
			Inputs: []Input{
				{Name: "content", Title: "Content", Required: true, Type: TypeString, Description: "The note (Pipedrive takes basic HTML)."},
				{Name: "person_id", Title: "Person id", Type: TypeNumber},
				{Name: "lead_id", Title: "Lead id", Type: TypeString},
				{Name: "deal_id", Title: "Deal id", Type: TypeNumber},
			},
			Check: func(in map[string]any) []Problem {
				n := 0
				for _, k := range []string{"person_id", "lead_id", "deal_id"} {
					if _, ok := in[k]; ok {
						n++
					}
				}
				if n != 1 {
					return []Problem{problemf("person_id", "give exactly one of person_id, lead_id, deal_id")}
				}
				return nil
			},
			Outputs: object(map[string]any{
				"id":      typed("number", "The note's id."),
				"created": typed("boolean", "False when the same note was already there."),
			}, "id", "created"),
			Run: pipedriveAddNoteRun,
		},
	}
}
