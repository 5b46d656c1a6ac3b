package action

// hubSpotSpecs are the HubSpot actions.
func hubSpotSpecs() []Spec { return nil }
