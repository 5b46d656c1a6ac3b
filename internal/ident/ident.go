// Package ident makes and checks the ids of everything Trawl stores:
// UUIDv7 strings, whose time-ordered prefix keeps inserts at the end of
// their indexes on both engines.
package ident

import "github.com/google/uuid"

// New returns a new id.
func New() string { return uuid.Must(uuid.NewV7()).String() }

// Valid reports whether s has the form of an id, so that lookups of
// malformed ids answer not found instead of a database type error.
func Valid(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil && len(s) == 36
}
