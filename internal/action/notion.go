package action

// notionSpecs are the Notion actions.
func notionSpecs() []Spec { return nil }
