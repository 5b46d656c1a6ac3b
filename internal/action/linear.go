package action

// linearSpecs are the Linear actions.
func linearSpecs() []Spec { return nil }
