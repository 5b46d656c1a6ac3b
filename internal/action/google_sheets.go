package action

// Kinds of the Google Sheets actions.
const (
	KindSheetsAppendRow = "google_sheets_append_row"
	KindSheetsUpsertRow = "google_sheets_upsert_row"
)

// googleSheetsSpecs are the Google Sheets actions.
func googleSheetsSpecs() []Spec {
	common := []Input{
		{Name: "spreadsheet_id", Title: "Spreadsheet", Type: TypeString, Required: true,
			Description: "The spreadsheet's id, or its docs.google.com URL (GET /v1/integrations/google-sheets/documents lists them). It must be shared with the service account's client_email."},
		{Name: "sheet", Title: "Sheet", Type: TypeString, Required: true,
			Description: "The sheet's title (or its gid), as GET /v1/integrations/google-sheets/documents/{document_id}/sheets lists them."},
	}
	rowOut := func(desc string) map[string]any {
		return object(map[string]any{
			"row":           typed("integer", "The row's number in the sheet (1 is the header row)."),
			"created":       typed("boolean", desc),
			"updated_range": typed("string", "The A1 range Sheets wrote ('Sheet1'!A5:D5); empty when nothing was written."),
		}, "row", "created", "updated_range")
	}
	return []Spec{
		{
			Kind: KindSheetsAppendRow, Name: "Append Google Sheets row", Category: CategoryIntegration, Connection: "google_sheets",
			Description: "Appends a row to a sheet (spreadsheets.values.append) through the account's Google Sheets connection. " +
				"values maps header names to cell values (or lists cells in column order). With key_column, a row whose key " +
				"cell already holds the value is left as it is and no row is added, so a retried step never adds a second row.",
			Inputs: append(common,
				Input{Name: "values", Title: "Values", Type: TypeAny, Required: true,
					Description: "An object of column header → value (a sheet without a header row gets these names as its header), or an array of values in column order."},
				Input{Name: "key_column", Title: "Key column", Type: TypeString,
					Description: "A header whose value identifies the row (an email, a post URL): the row is appended only when no row holds it yet."},
			),
			Run:     sheetsRun(false),
			Outputs: rowOut("Whether a row was added (false: key_column found the row already there)."),
		},
		{
			Kind: KindSheetsUpsertRow, Name: "Update or add Google Sheets row", Category: CategoryIntegration, Connection: "google_sheets",
			Description: "Finds the row whose key_column cell equals the value given for it and updates its cells in place " +
				"(spreadsheets.values.update); appends the row when none has it. Running it again changes nothing more.",
			Inputs: append(common,
				Input{Name: "key_column", Title: "Key column", Type: TypeString, Required: true,
					Description: "The header of the column that identifies a row (Email)."},
				Input{Name: "values", Title: "Values", Type: TypeObject, Required: true,
					Description: "Column header → value; it must hold key_column. Columns it leaves out keep their cells."},
			),
			Run:     sheetsRun(true),
			Outputs: rowOut("Whether the row was added (false: an existing row was updated)."),
		},
	}
}
