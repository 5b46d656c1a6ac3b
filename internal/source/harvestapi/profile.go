package harvestapi

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/pronet"
)

// Profile implements pronet.Provider with GET /linkedin/profile?publicIdentifier=U (profileId
// for an encoded ACoA… id). An answer without a profile is source.ErrNotFound.
func (c *Client) Profile(ctx context.Context, username string) (pronet.Profile, error) {
	if username == "" {
		return pronet.Profile{}, fmt.Errorf("harvestapi: profile: empty username")
	}
	q := profileQuery(username)
	if v := q.Get("profilePublicIdentifier"); v != "" {
		q = url.Values{"publicIdentifier": {v}}
	}
	env, err := c.get(ctx, "/linkedin/profile", q)
	if err != nil {
		return pronet.Profile{}, fmt.Errorf("harvestapi: profile %q: %w", username, err)
	}
	if len(env.Element) == 0 || string(env.Element) == "null" {
		return pronet.Profile{}, fmt.Errorf("harvestapi: profile %q: empty answer: %w", username, source.ErrNotFound)
	}
	p, err := ProfileFromItem(env.Element)
	switch {
	case errors.Is(err, ErrNoID):
		return pronet.Profile{}, fmt.Errorf("harvestapi: profile %q: %w", username, source.ErrNotFound)
	case err != nil:
		return pronet.Profile{}, fmt.Errorf("harvestapi: profile %q: %w", username, decodeErr(err))
	}
	c.bill(ctx, pronet.OpProfile, 1)
	return p, nil
}
