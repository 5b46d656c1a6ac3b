package action

// lemlistSpecs are the lemlist actions.
func lemlistSpecs() []Spec { return nil }
