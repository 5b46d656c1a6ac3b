package action

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/trawlhq/trawl/internal/integration"
)

// KindAirtableUpsert creates or updates an Airtable record.
const KindAirtableUpsert = "airtable_upsert_record"

// airtableSpecs are the Airtable actions.
func airtableSpecs() []Spec {
	return []Spec{{
		Kind: KindAirtableUpsert, Name: "Upsert Airtable record", Category: CategoryIntegration, Connection: "airtable",
		Description: "Creates or updates one record of an Airtable table through the account's Airtable connection: " +
			"PATCH /v0/{baseId}/{table} with performUpsert, matching the record on the merge_on fields, so a retried " +
			"or repeated step updates the record it created instead of adding another.",
		Inputs: []Input{
			{Name: "base_id", Title: "Base", Type: TypeString, Required: true, Description: "The base's id (app…), as GET /v1/integrations/airtable/bases lists them."},
			{Name: "table", Title: "Table", Type: TypeString, Required: true, Description: "The table's id (tbl…) or name."},
			{Name: "merge_on", Title: "Merge on", Type: TypeStringArray, Required: true, Description: "The fields (1 to 3, by name) that identify the record (Email); each must be in fields."},
			{Name: "fields", Title: "Fields", Type: TypeObject, Required: true, Description: "Field name → value, as GET /v1/integrations/airtable/fields lists the fields."},
			{Name: "typecast", Title: "Typecast", Type: TypeBoolean, Description: "Let Airtable convert text to the field's type and create missing select options."},
		},
		Check: func(in map[string]any) []Problem {
			merge, ok1 := in["merge_on"].([]any)
			fields, ok2 := in["fields"].(map[string]any)
			if !ok1 || !ok2 {
				return nil
			}
			var out []Problem
			for _, m := range merge {
				if s, ok := m.(string); ok && !isTemplate(s) {
					if _, ok := fields[s]; !ok {
						out = append(out, problemf("merge_on", "names %q, which fields does not give", s))
					}
				}
			}
			return out
		},
		Run: airtableUpsertRun,
		Outputs: object(map[string]any{
			"id":      typed("string", "The record's id (rec…)."),
			"created": typed("boolean", "Whether the record was created (false: an existing one was updated)."),
		}, "id", "created"),
	}}
}

// airtableUpsertRun upserts one record; the upsert itself is what makes a
// retry safe (Airtable has no idempotency header).
func airtableUpsertRun(ctx context.Context, call Call) (map[string]any, error) {
	in := call.Inputs
	base := strings.TrimSpace(inputString(in, "base_id"))
	if !integration.AirtableIDRE.MatchString(base) || !strings.HasPrefix(base, "app") {
		return nil, failf(CodeInvalidInput, false, "base_id must be an Airtable base id (app followed by 14 letters and digits)")
	}
	table := strings.TrimSpace(inputString(in, "table"))
	if table == "" {
		return nil, failf(CodeInvalidInput, false, "table is required: the table's id (tbl…) or name")
	}
	fields, ok := in["fields"].(map[string]any)
	if !ok || len(fields) == 0 {
		return nil, failf(CodeInvalidInput, false, "fields must be an object of field name → value")
	}
	merge := airtableNames(in["merge_on"])
	if len(merge) == 0 || len(merge) > 3 {
		return nil, failf(CodeInvalidInput, false, "merge_on must name between 1 and 3 fields")
	}
	for _, m := range merge {
		if v, ok := fields[m]; !ok || v == nil || v == "" {
			return nil, failf(CodeInvalidInput, false, "fields has no value for %q, a merge_on field", m)
		}
	}
	c, err := connection(ctx, call, "airtable")
	if err != nil {
		return nil, err
	}
	body := map[string]any{
		"performUpsert": map[string]any{"fieldsToMergeOn": merge},
		"records":       []map[string]any{{"fields": fields}},
	}
	if tc, _ := in["typecast"].(bool); tc {
		body["typecast"] = true
	}
	var answer struct {
		Records []struct {
			ID string `json:"id"`
		} `json:"records"`
		CreatedRecords []string `json:"createdRecords"`
	}
	err = c.Do(ctx, integration.Request{Method: http.MethodPatch, Path: "/v0/" + url.PathEscape(base) + "/" + url.PathEscape(table), Body: body}, &answer)
	if err != nil {
		return nil, serviceFailure(err)
	}
	if len(answer.Records) != 1 || answer.Records[0].ID == "" {
		return nil, failf(CodeUpstream, false, "Airtable answered the upsert without the record")
	}
	id := answer.Records[0].ID
	return map[string]any{"id": id, "created": slices.Contains(answer.CreatedRecords, id)}, nil
}

// airtableNames reads a list of names: an array, or one comma-separated string.
func airtableNames(v any) []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	switch v := v.(type) {
	case string:
		for _, s := range strings.Split(v, ",") {
			add(s)
		}
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				add(s)
			}
		}
	case []string:
		for _, s := range v {
			add(s)
		}
	}
	return out
}
