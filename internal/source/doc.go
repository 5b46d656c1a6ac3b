// Package source holds what the upstream connectors share: the standard search-result item,
// the errors every connector returns, and the HTTP retry policy.
//
// The connectors live in subpackages: microblog (X API v2), pronet (the pronet provider
// contract in docs/providers.md) and enrich (People Data Labs v5 person enrichment).
package source
