package action

// instantlySpecs are the Instantly actions.
func instantlySpecs() []Spec { return nil }
