package action

// Salesforce actions: they act through the account's Salesforce
// connection (internal/integration), on the org's REST API v60.0.
const (
	KindSalesforceUpsertLead = "salesforce_upsert_lead"
	KindSalesforceCreateTask = "salesforce_create_task"
)

// salesforceLeadKeyDefault is the Lead field a lead is upserted by unless
// the step names another: a custom text or URL field the org adds, marked
// External ID and Unique, holding the person's LinkedIn URL.
const salesforceLeadKeyDefault = "LinkedIn_URL__c"

// salesforceSpecs are the Salesforce actions.
func salesforceSpecs() []Spec {
	return []Spec{
		{
			Kind: KindSalesforceUpsertLead, Name: "Upsert Salesforce lead", Category: CategoryCRM, Connection: "salesforce",
			Description: "Creates or updates a Salesforce Lead by an External ID field (PATCH /sobjects/Lead/{field}/{value}): running it again updates the same lead. Empty inputs leave the lead's fields as they are.",
			Inputs: []Input{
				{Name: "external_id_field", Title: "External ID field", Type: TypeString, Description: "API name of the Lead's External ID field to match on; default " + salesforceLeadKeyDefault + " (a custom field marked External ID and Unique)."},
				{Name: "external_id", Title: "External ID", Required: true, Type: TypeString, Description: "The value to match, such as the person's LinkedIn URL."},
				{Name: "LastName", Title: "Last name", Type: TypeString, Description: "Required by Salesforce when the lead is created."},
				{Name: "FirstName", Title: "First name", Type: TypeString},
				{Name: "Company", Title: "Company", Type: TypeString, Description: "Required by Salesforce when the lead is created."},
				{Name: "Email", Title: "Email", Type: TypeString},
				{Name: "Title", Title: "Title", Type: TypeString},
				{Name: "LeadSource", Title: "Lead source", Type: TypeString, Description: "A value of the org's Lead Source picklist (GET /v1/integrations/salesforce/crm-field-options)."},
				{Name: "fields", Title: "Other fields", Type: TypeObject, Description: "Other Lead fields by API name, e.g. {\"Industry\": \"Technology\"} (GET /v1/integrations/salesforce/crm-fields)."},
			},
			Outputs: object(map[string]any{
				"id":      typed("string", "The lead's 18-character id."),
				"created": typed("boolean", "true when the lead was created, false when an existing one was updated."),
			}, "id", "created"),
			Run: salesforceUpsertLead,
		},
		{
			Kind: KindSalesforceCreateTask, Name: "Create Salesforce task", Category: CategoryCRM, Connection: "salesforce",
			Description: "Creates a Task on a lead or contact (POST /sobjects/Task). With idempotency_field, the task is upserted by the step's idempotency key in that Task External ID field instead, so a retried step never makes a second task.",
			Inputs: []Input{
				{Name: "WhoId", Title: "Lead or contact", Required: true, Type: TypeString, Description: "The id of the lead or contact, e.g. {{ steps.lead.output.id }}."},
				{Name: "Subject", Title: "Subject", Required: true, Type: TypeString},
				{Name: "Description", Title: "Comments", Type: TypeString},
				{Name: "ActivityDate", Title: "Due date", Type: TypeString, Description: "YYYY-MM-DD."},
				{Name: "Status", Title: "Status", Type: TypeString, Description: "A value of the org's Task Status picklist; Salesforce's default when empty (Not Started)."},
				{Name: "Priority", Title: "Priority", Type: TypeString, Description: "High, Normal or Low; Salesforce's default when empty (Normal)."},
				{Name: "idempotency_field", Title: "Idempotency field", Type: TypeString, Description: "API name of a custom Task text field marked External ID and Unique (e.g. Trawl_Key__c). When given, a retried step updates its task instead of creating another."},
			},
			Outputs: object(map[string]any{
				"id":      typed("string", "The task's 18-character id."),
				"created": typed("boolean", "false when a retried step found its task (idempotency_field) and updated it."),
			}, "id", "created"),
			Run: salesforceCreateTask,
		},
	}
}
