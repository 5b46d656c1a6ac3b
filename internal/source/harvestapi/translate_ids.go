package harvestapi

import (
	"net/url"
	"strings"

	"github.com/trawlhq/trawl/internal/source/pronet"
)

// reactionType maps the vendor's reaction names (LinkedIn's internal ones, or the names the
// site shows) onto the contract's six; anything else counts as a LIKE.
func reactionType(s string) string {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "PRAISE", "CELEBRATE":
		return pronet.ReactionPraise
	case "EMPATHY", "LOVE":
		return pronet.ReactionEmpathy
	case "INTEREST", "INSIGHTFUL", "CURIOUS", "MAYBE":
		return pronet.ReactionInterest
	case "APPRECIATION", "SUPPORT":
		return pronet.ReactionAppreciation
	case "ENTERTAINMENT", "FUNNY":
		return pronet.ReactionEntertainment
	default:
		return pronet.ReactionLike
	}
}

// ProfileURN is the contract URN of a vendor profile id: a numeric member id becomes
// urn:li:member:<n>, an encoded one (ACoAA…) urn:li:fsd_profile:<id>; a URN stays as it is.
func ProfileURN(id string) string {
	id = strings.TrimSpace(id)
	switch {
	case id == "":
		return ""
	case strings.HasPrefix(id, "urn:"):
		return id
	case isDigits(id):
		return "urn:li:member:" + id
	default:
		return "urn:li:fsd_profile:" + id
	}
}

// activityID is the numeric activity id in a vendor post id (digits, urn:li:activity:<n>, or
// a post URL).
func activityID(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if isDigits(s) {
		return s
	}
	id, err := pronet.ParsePostURN(s)
	if err != nil {
		return ""
	}
	return id
}

// slugOf returns the kind ("in" or "company") and slug of a LinkedIn profile or company URL;
// query, fragment and trailing path parts are ignored.
func slugOf(raw string) (kind, slug string) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Path == "" {
		return "", ""
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 2 || (parts[0] != "in" && parts[0] != "company") || parts[1] == "" {
		return "", ""
	}
	return parts[0], parts[1]
}

// miniProfileID is the ACoA… id a vendor author URL carries in its miniProfileUrn parameter.
func miniProfileID(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Query().Get("miniProfileUrn"), "urn:li:fsd_profile:")
}

// reactionActorID is the member id inside a reaction id
// urn:li:fsd_reaction:(urn:li:fsd_profile:<id>,urn:li:…,0).
func reactionActorID(id string) string {
	_, rest, ok := strings.Cut(id, "urn:li:fsd_profile:")
	if !ok {
		return ""
	}
	end := strings.IndexAny(rest, ",)")
	if end <= 0 {
		return ""
	}
	return rest[:end]
}

func companyURL(slug string) string { return "https://www.linkedin.com/company/" + slug + "/" }

func splitName(name string) (first, last string) {
	name = strings.TrimSpace(name)
	first, last, _ = strings.Cut(name, " ")
	return first, strings.TrimSpace(last)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// reactionCounters are the per-type reaction counts of a post or a comment.
type reactionCounters struct{ like, praise, empathy, interest, appreciation, funny *int }

// add counts n reactions of the vendor's type t.
func (c reactionCounters) add(t string, n int) {
	switch reactionType(t) {
	case pronet.ReactionLike:
		*c.like += n
	case pronet.ReactionPraise:
		*c.praise += n
	case pronet.ReactionEmpathy:
		*c.empathy += n
	case pronet.ReactionInterest:
		*c.interest += n
	case pronet.ReactionAppreciation:
		*c.appreciation += n
	case pronet.ReactionEntertainment:
		*c.funny += n
	}
}
