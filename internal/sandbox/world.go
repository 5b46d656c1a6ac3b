package sandbox

import (
	"errors"
	"fmt"
	"strings"
)

// Sizes of the fixed roster that searches and engagement draw from.
const (
	rosterPeople    = 2000
	rosterCompanies = 300
)

// Errors of direct look-ups; the servers map them to each upstream's own answers.
var (
	ErrNotFound    = errors.New("sandbox: not found")
	ErrUpstream    = errors.New("sandbox: upstream failure")
	ErrRateLimited = errors.New("sandbox: rate limited")
	ErrInvalid     = errors.New("sandbox: malformed identifier")
)

// World is the deterministic synthetic world. It is immutable after NewWorld: the roster is
// computed once from the seed; everything else is derived on demand by hashing.
type World struct {
	seed      uint64
	people    []Person
	companies []Company
	byMicro   map[string]int // microblog username (lower case) → roster index
	byPronet  map[string]int // pronet username → roster index
	bySlug    map[string]int // company slug → roster index
	shuffle   []int          // a fixed permutation of the roster, for engager lists
}

// NewWorld builds the world of a seed.
func NewWorld(seed int64) *World {
	w := &World{
		seed:     mix(uint64(seed) ^ 0x7261776c),
		byMicro:  make(map[string]int, rosterPeople),
		byPronet: make(map[string]int, rosterPeople),
		bySlug:   make(map[string]int, rosterCompanies),
	}
	w.buildCompanies()
	w.buildPeople()
	r := newRNG(hashString(w.seed, "shuffle"))
	w.shuffle = make([]int, rosterPeople)
	for i := range w.shuffle {
		w.shuffle[i] = i
	}
	for i := len(w.shuffle) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		w.shuffle[i], w.shuffle[j] = w.shuffle[j], w.shuffle[i]
	}
	return w
}

// Roster returns the fixed people of the world (a copy of the slice header; do not modify).
func (w *World) Roster() []Person { return w.people }

// Companies returns the fixed companies of the world.
func (w *World) Companies() []Company { return w.companies }

// Topics returns the names of the topics posts are written about.
func (w *World) Topics() []string {
	out := make([]string, len(topics))
	for i, t := range topics {
		out[i] = t.Name
	}
	return out
}

// TopicKeywords returns the keywords that posts of topic i contain.
func (w *World) TopicKeywords(i int) []string { return append([]string(nil), topics[i].Keywords...) }

// checkIdent applies the error-path rules: missing- → not found, error- → upstream failure,
// ratelimited- → rate limited.
func checkIdent(id string) error {
	l := strings.ToLower(id)
	switch {
	case strings.HasPrefix(l, "missing-") || strings.HasPrefix(l, "missing_"):
		return ErrNotFound
	case strings.HasPrefix(l, "error-") || strings.HasPrefix(l, "error_"):
		return ErrUpstream
	case strings.HasPrefix(l, "ratelimited-") || strings.HasPrefix(l, "ratelimited_"):
		return ErrRateLimited
	}
	return nil
}

// validSlug accepts what both platforms could call a username or slug (plus the error-path prefixes).
func validSlug(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// PersonByMicroblog returns the person behind a microblog username.
func (w *World) PersonByMicroblog(username string) (Person, error) {
	if !validSlug(username) {
		return Person{}, fmt.Errorf("sandbox: microblog user %q: %w", username, ErrInvalid)
	}
	if err := checkIdent(username); err != nil {
		return Person{}, fmt.Errorf("sandbox: microblog user %q: %w", username, err)
	}
	l := strings.ToLower(username)
	if i, ok := w.byMicro[l]; ok {
		return w.people[i], nil
	}
	return w.derivedPerson(l, l, strings.ReplaceAll(l, "_", "-")), nil
}

// PersonByPronet returns the person behind a pronet username (the slug of a /in/ URL).
func (w *World) PersonByPronet(username string) (Person, error) {
	if !validSlug(username) {
		return Person{}, fmt.Errorf("sandbox: pronet profile %q: %w", username, ErrInvalid)
	}
	if err := checkIdent(username); err != nil {
		return Person{}, fmt.Errorf("sandbox: pronet profile %q: %w", username, err)
	}
	l := strings.ToLower(username)
	if i, ok := w.byPronet[l]; ok {
		return w.people[i], nil
	}
	key := strings.ReplaceAll(l, "-", "_")
	return w.derivedPerson(key, key, l), nil
}

// Company returns the company behind a pronet company slug.
func (w *World) Company(slug string) (Company, error) {
	if !validSlug(slug) {
		return Company{}, fmt.Errorf("sandbox: company %q: %w", slug, ErrInvalid)
	}
	if err := checkIdent(slug); err != nil {
		return Company{}, fmt.Errorf("sandbox: company %q: %w", slug, err)
	}
	l := strings.ToLower(slug)
	if i, ok := w.bySlug[l]; ok {
		return w.companies[i], nil
	}
	return w.derivedCompany(l), nil
}

// careerYear is a fixed reference for career dates, so people do not change as the clock moves.
const careerYear = 2025
