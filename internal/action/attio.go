package action

// attioSpecs are the Attio actions.
func attioSpecs() []Spec { return nil }
