// Package pronet is the client of the pronet provider contract (docs/providers.md): profile
// posts, company posts, post comments and reactions, post search and profiles, plus the
// parsers of the platform's profile, company and post URLs.
package pronet
