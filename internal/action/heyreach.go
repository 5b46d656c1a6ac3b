package action

// heyReachSpecs are the HeyReach actions.
func heyReachSpecs() []Spec { return nil }
