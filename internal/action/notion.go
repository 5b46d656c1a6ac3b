package action

// KindNotionCreatePage adds a page to a Notion database (or updates the
// page whose dedupe property already holds the value).
const KindNotionCreatePage = "notion_create_page"

// notionSpecs are the Notion actions.
func notionSpecs() []Spec {
	return []Spec{{
		Kind: KindNotionCreatePage, Name: "Create Notion database page", Category: CategoryIntegration, Connection: "notion",
		Description: "Adds a page to a Notion database shared with the connected integration (POST /v1/pages). Properties are plain values by property name, converted to the database's property types (title, rich_text, number, select, multi_select, url, email, phone_number, checkbox, date); content becomes paragraph blocks. With dedupe_property, the page whose property equals the given value is updated instead (PATCH /v1/pages/{id}), so running the step again does not add a second page.",
		Inputs: []Input{
			{Name: "database_id", Title: "Database", Required: true, Type: TypeString, Description: "The database's id (GET /v1/integrations/notion/databases)."},
			{Name: "properties", Title: "Properties", Required: true, Type: TypeObject, Description: "Property name → plain value: text, a number, true/false, an option's name (a list or comma-separated for multi_select), an ISO date."},
			{Name: "content", Title: "Content", Type: TypeString, Description: "Text of the page; blank lines separate paragraphs (at most 100)."},
			{Name: "dedupe_property", Title: "Dedupe property", Type: TypeString, Description: "A property of properties (title, rich_text, email, url, phone_number, number, select or checkbox): the page whose value equals it is updated instead of a new one being added."},
		},
		Check: func(in map[string]any) []Problem {
			p, isMap := in["properties"].(map[string]any)
			d, isName := in["dedupe_property"].(string)
			if isMap && isName && !isTemplate(d) {
				if _, ok := p[d]; !ok {
					return []Problem{problemf("dedupe_property", "must be one of the properties given")}
				}
			}
			return nil
		},
		Outputs: object(map[string]any{
			"id":      typed("string", "The page's id."),
			"url":     typed("string", "The page's URL."),
			"created": typed("boolean", "False when an existing page was updated (dedupe_property)."),
		}, "id", "url", "created"),
		Run: notionCreatePageRun,
	}}
}
