package action

import "context"

// KindPersonEnrichment enriches a pronet profile (as POST /v1/profile/enrich).
const KindPersonEnrichment = "person_enrichment"

func personEnrichmentSpec() Spec {
	str := map[string]any{"type": "string"}
	return Spec{
		Kind: KindPersonEnrichment, Name: "Enrich person", Category: CategoryEnrichment,
		CreditCost: 1, CreditPer: PerResult, Endpoint: "POST /v1/profile/enrich",
		Description: "Looks up a person by pronet profile URL and outputs the enriched prospect and their experience, as POST /v1/profile/enrich does, with the prospect's work email when the enrichment provider has one (prospect.work_email).",
		Inputs: []Input{{Name: "profile_url", Title: "Profile URL", Required: true, Type: TypeString,
			Description: "A pronet /in/ URL, usually {{ trigger.author_url }} or {{ trigger.prospect.pronet_url }}."}},
		Outputs: object(map[string]any{
			"prospect": object(map[string]any{
				"full_name": str, "first_name": str, "last_name": str, "job_title": str, "job_company_name": str,
				"job_company_website": str, "industry": str, "location_name": str, "location_country": str,
				"pronet_url": str, "pronet_urn": str, "summary": str,
				"follower_count": map[string]any{"type": "integer"},
				"work_email":     map[string]any{"type": "string", "description": "The work email the enrichment provider lists (PDL's work_email); empty when it has none."},
			}),
			"experience": map[string]any{"type": "array", "items": object(map[string]any{
				"company_name": str, "job_title": str, "start_date": str, "end_date": str,
			})},
		}, "prospect", "experience"),
	}
}

// Enricher looks a person up by pronet profile URL, as POST
// /v1/profile/enrich does, and answers {prospect, experience}.
type Enricher func(ctx context.Context, profileURL string) (map[string]any, error)

// PersonEnrichment is the executor of person_enrichment.
func PersonEnrichment(enrich Enricher) Executor {
	return func(ctx context.Context, call Call) (map[string]any, error) {
		url := inputString(call.Inputs, "profile_url")
		if url == "" {
			return nil, failf(CodeInvalidInput, false, "profile_url is empty")
		}
		return enrich(ctx, url)
	}
}
