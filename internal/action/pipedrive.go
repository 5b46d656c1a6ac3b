package action

// pipedriveSpecs are the Pipedrive actions.
func pipedriveSpecs() []Spec { return nil }
