package action

// salesforceSpecs are the Salesforce actions.
func salesforceSpecs() []Spec { return nil }
