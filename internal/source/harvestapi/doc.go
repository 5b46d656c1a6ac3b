// Package harvestapi is the pronet provider over HarvestAPI's REST API
// (https://api.harvest-api.com, the linkedin/… endpoints): it implements pronet.Provider by
// translating the vendor's answers into the shapes of the pronet provider contract. The
// translation of the vendor's items (translate.go) is exported for the Apify adapter, whose
// HarvestAPI actors store the same items in their datasets. docs/providers.md describes the
// mapping.
package harvestapi
