package action

// integrationSpecs are the actions that act through an account's
// connection (internal/integration), by service; each service's file
// declares its entries with their executors (Spec.Run).
func integrationSpecs() []Spec {
	var out []Spec
	for _, specs := range [][]Spec{
		hubSpotSpecs(), salesforceSpecs(), pipedriveSpecs(), attioSpecs(),
		googleSheetsSpecs(), airtableSpecs(), notionSpecs(), linearSpecs(),
		smartleadSpecs(), instantlySpecs(), lemlistSpecs(), heyReachSpecs(),
	} {
		out = append(out, specs...)
	}
	return out
}
