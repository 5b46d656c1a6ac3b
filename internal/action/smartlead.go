package action

// smartleadSpecs are the Smartlead actions.
func smartleadSpecs() []Spec { return nil }
