// Package auth holds the domain of who may call the API: accounts, the plans
// they are on, API keys and the permissions a key carries.
package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Plan is an account's commercial plan. The spec's "the service or CUSTOM"
// gate means ENTERPRISE or CUSTOM.
type Plan string

const (
	PlanStarter    Plan = "STARTER"
	PlanEnterprise Plan = "ENTERPRISE"
	PlanCustom     Plan = "CUSTOM"
)

// Plans lists every plan in the order they are documented.
func Plans() []Plan { return []Plan{PlanStarter, PlanEnterprise, PlanCustom} }

// ParsePlan accepts the canonical spelling and lower case.
func ParsePlan(s string) (Plan, error) {
	p := Plan(strings.ToUpper(strings.TrimSpace(s)))
	if slices.Contains(Plans(), p) {
		return p, nil
	}
	return "", fmt.Errorf("unknown plan %q: want one of STARTER, ENTERPRISE, CUSTOM", s)
}

// Feature is something only some plans may use.
type Feature string

const (
	FeatureHourlyFrequency Feature = "hourly_frequency"
	FeatureProfilePosts    Feature = "profile_posts"
	FeatureSocialMapping   Feature = "social_mapping"
	FeatureTopics          Feature = "topics"
)

// Allows reports whether the plan includes the feature. Every gated feature
// of the spec is reserved to ENTERPRISE and CUSTOM.
func (p Plan) Allows(f Feature) bool {
	switch f {
	case FeatureHourlyFrequency, FeatureProfilePosts, FeatureSocialMapping, FeatureTopics:
		return p == PlanEnterprise || p == PlanCustom
	}
	return true
}

// Permission is a capability carried by an API key.
type Permission string

const (
	PermAll                 Permission = "*"
	PermTrackProfilePosts   Permission = "track:profile:posts"
	PermTrackCompanyComment Permission = "track:company:comments"
	PermTrackCompanyPosts   Permission = "track:company:posts"
	PermSocialMappingRead   Permission = "social:mapping:read"
	PermDiscoverCreators    Permission = "discover:creators:read"
	PermEnrichProfile       Permission = "enrich:profile:read"
	PermEnrichCompany       Permission = "enrich:company:read"
	PermTopicsRead          Permission = "topics:read"
	PermTopicsWrite         Permission = "topics:write"
	PermSearchesRead        Permission = "searches:read"
	PermSearchesWrite       Permission = "searches:write"
	// PermSecretsRead lists the account's secret names, and lets a
	// workflow step send a secret's value; PermSecretsWrite creates,
	// replaces and deletes secrets.
	PermSecretsRead  Permission = "secrets:read"
	PermSecretsWrite Permission = "secrets:write"
)

// Permissions lists every grantable permission except the wildcard.
func Permissions() []Permission {
	return []Permission{
		PermTrackProfilePosts, PermTrackCompanyComment, PermTrackCompanyPosts,
		PermSocialMappingRead, PermDiscoverCreators, PermEnrichProfile, PermEnrichCompany,
		PermTopicsRead, PermTopicsWrite, PermSearchesRead, PermSearchesWrite,
		PermSecretsRead, PermSecretsWrite,
	}
}

// ParsePermissions parses a comma-separated list ("*" alone grants all).
func ParsePermissions(s string) ([]Permission, error) {
	var out []Permission
	for _, part := range strings.Split(s, ",") {
		p := Permission(strings.TrimSpace(part))
		if p == "" {
			continue
		}
		if p != PermAll && !slices.Contains(Permissions(), p) {
			return nil, fmt.Errorf("unknown permission %q", p)
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("at least one permission is required")
	}
	return out, nil
}

// Account owns keys, searches, workflows and a credit allocation.
type Account struct {
	ID   string
	Name string
	Plan Plan
	// MonthlyCredits overrides the plan's allocation when set.
	MonthlyCredits *int64
	CreatedAt      time.Time
}

// Key is an API key as stored: the secret itself is never kept, only its hash.
type Key struct {
	ID          string
	AccountID   string
	Prefix      string
	Label       string // what the key is for, in listings
	Permissions []Permission
	FullArchive bool
	CreatedAt   time.Time
	// ExpiresAt, when set, is the first instant the key no longer works.
	ExpiresAt  *time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// Expired reports whether the key has expired at now.
func (k Key) Expired(now time.Time) bool { return k.ExpiresAt != nil && !now.Before(*k.ExpiresAt) }

// What the API (and the web console's sign-in) says of a key it refuses.
const (
	MessageKeyRequired = "An API key is required."
	MessageKeyUnknown  = "The API key is unknown or revoked."
)

// MessageKeyExpired is what the API says of a key that expired at at.
func MessageKeyExpired(at time.Time) string {
	return "The API key expired at " + at.UTC().Format("2006-01-02T15:04:05.000Z") + "."
}

// MessageLacks is what the API (and the web console) says to a key without
// the permission p.
func MessageLacks(p Permission) string {
	return "The API key lacks the permission " + string(p) + "."
}

// Status is what a listing shows of a key: revoked, expired or active.
func (k Key) Status(now time.Time) string {
	switch {
	case k.RevokedAt != nil:
		return "revoked"
	case k.Expired(now):
		return "expired"
	}
	return "active"
}

// Has reports whether the key grants the permission.
func (k Key) Has(p Permission) bool {
	return slices.Contains(k.Permissions, PermAll) || slices.Contains(k.Permissions, p)
}

// Principal is who is calling: the key and its account.
type Principal struct {
	Key     Key
	Account Account
}

const keyPrefix = "trawl_"

// NewSecret returns a fresh API key secret (32 random bytes), the visible
// prefix that identifies it in listings, and the hash to store.
func NewSecret() (secret, prefix, hash string, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", "", fmt.Errorf("auth: generate key: %w", err)
	}
	secret = keyPrefix + hex.EncodeToString(b[:])
	return secret, VisiblePrefix(secret), HashSecret(secret), nil
}

// VisiblePrefix is the part of a key shown in listings and logs.
func VisiblePrefix(secret string) string {
	if len(secret) < len(keyPrefix)+8 {
		return secret
	}
	return secret[:len(keyPrefix)+8]
}

// HashSecret hashes a key for storage and lookup. Keys carry 256 bits of
// entropy, so a fast hash is enough: nothing can be brute-forced.
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}
