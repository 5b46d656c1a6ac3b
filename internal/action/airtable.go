package action

// airtableSpecs are the Airtable actions.
func airtableSpecs() []Spec { return nil }
