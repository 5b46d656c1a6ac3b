// Package enrich is the client of People Data Labs v5 person enrichment, and builds the
// spec's enriched profile (prospect and experience) from a PDL person and a pronet profile.
package enrich
