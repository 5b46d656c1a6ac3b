package apify

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/trawlhq/trawl/internal/source/pronet"
)

// DefaultBaseURL is Apify's API.
const DefaultBaseURL = "https://api.apify.com"

// DefaultRateLimit is the requests per second this process sends by default. Apify limits
// every API resource (an actor, a run, a dataset) to 60 requests per second and a user to
// 250,000 a minute (docs.apify.com/api/v2 "Rate limiting"); half the per-resource limit leaves
// room for other clients of the same account.
const DefaultRateLimit = 30

// DefaultConcurrency is how many calls (each an actor run) run at once by default: the 25
// concurrent actor runs of Apify's free plan (apify.com/pricing), the smallest plan's limit.
const DefaultConcurrency = 25

// DefaultActors are HarvestAPI's maintained no-cookie actors. The profile posts actor
// (harvestapi~linkedin-profile-posts) takes profile, company page and post URLs in targetUrls,
// so it serves company posts and single posts as well.
func DefaultActors() map[string]string {
	return map[string]string{
		pronet.OpSearch:       "harvestapi~linkedin-post-search",
		pronet.OpProfilePosts: "harvestapi~linkedin-profile-posts",
		pronet.OpCompanyPosts: "harvestapi~linkedin-profile-posts",
		pronet.OpPost:         "harvestapi~linkedin-profile-posts",
		pronet.OpComments:     "harvestapi~linkedin-post-comments",
		pronet.OpReactions:    "harvestapi~linkedin-post-reactions",
		pronet.OpProfile:      "harvestapi~linkedin-profile-scraper",
	}
}

// DefaultPrices are the actors' published pay-per-result prices (their README and store
// pages): $2 per 1,000 posts, comments or reactions, $4 per 1,000 profiles without e-mail
// search. Runs have no start fee, so PerCall is 0.
func DefaultPrices() pronet.Prices {
	const perThousand2, perThousand4 = 2000, 4000 // micros per item
	return pronet.Prices{
		pronet.OpSearch:       {PerItem: perThousand2},
		pronet.OpProfilePosts: {PerItem: perThousand2},
		pronet.OpCompanyPosts: {PerItem: perThousand2},
		pronet.OpPost:         {PerItem: perThousand2},
		pronet.OpComments:     {PerItem: perThousand2},
		pronet.OpReactions:    {PerItem: perThousand2},
		pronet.OpProfile:      {PerItem: perThousand4},
	}
}

// actorID is "owner~name" (the form Apify's URLs take) or an actor's 17-character id.
var actorID = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]{0,99}~[A-Za-z0-9][A-Za-z0-9._-]{0,99}|[A-Za-z0-9]{17})$`)

// ParseActors reads TRAWL_APIFY_ACTORS, "op=owner~name,…", into the actors it overrides
// (New takes the defaults for the others). "owner/name", as the store shows it, is accepted too.
func ParseActors(s string) (map[string]string, error) {
	out := map[string]string{}
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		op, actor, ok := strings.Cut(part, "=")
		op, actor = strings.TrimSpace(op), strings.TrimSpace(actor)
		if !ok {
			return nil, fmt.Errorf("apify: actors: %q is not op=owner~name", part)
		}
		if !slices.Contains(pronet.Ops(), op) {
			return nil, fmt.Errorf("apify: actors: unknown operation %q (want one of %s)", op, strings.Join(pronet.Ops(), ", "))
		}
		actor = strings.Replace(actor, "/", "~", 1)
		if !actorID.MatchString(actor) {
			return nil, fmt.Errorf("apify: actors: %s: %q is not owner~name or an actor id", op, actor)
		}
		if _, dup := out[op]; dup {
			return nil, fmt.Errorf("apify: actors: %s given twice", op)
		}
		out[op] = actor
	}
	return out, nil
}
