package action

// googleSheetsSpecs are the Google Sheets actions.
func googleSheetsSpecs() []Spec { return nil }
