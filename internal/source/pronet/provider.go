package pronet

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/trawlhq/trawl/internal/source"
)

// Provider is what Trawl needs of a pronet data vendor, in the shapes of the pronet provider
// contract (docs/providers.md). Client speaks the contract itself; the adapters of real vendors
// (internal/source/harvestapi, internal/source/apify) translate their vendor's protocol into it.
//
// Every method answers the errors of internal/source: source.ErrNotFound (wrapped),
// *source.RateLimitError, *source.UpstreamError, or ErrUnsupported (wrapped) for what the
// vendor cannot do. Methods that cost money at the vendor add it to the source.Meter of ctx.
type Provider interface {
	// Name is the provider's setting value (sandbox, harvestapi, apify); errors and /readyz
	// name it.
	Name() string
	// Check asks the vendor whether the key is good, at start and from /readyz.
	Check(ctx context.Context) error

	ProfilePosts(ctx context.Context, p ProfilePostsParams) ([]Post, string, error)
	CompanyPosts(ctx context.Context, companySlug string) ([]Post, error)
	Post(ctx context.Context, postURN string) (Post, error)
	Comments(ctx context.Context, postURN string, page, limit int) (CommentsPage, error)
	Reactions(ctx context.Context, postURN string, page, limit int) (ReactionsPage, error)
	SearchPosts(ctx context.Context, p SearchParams) (SearchPage, error)
	Profile(ctx context.Context, username string) (Profile, error)
}

// ErrUnsupported is wrapped by a Provider method when the vendor has no way to do what is
// asked (a filter it lacks and Trawl cannot apply after the fetch, an operation it does not
// offer). The API answers it with a clear error naming the provider, never an empty result.
var ErrUnsupported = errors.New("not supported by the pronet provider")

// UnsupportedError is what a provider answers for a capability its vendor lacks; it wraps
// ErrUnsupported.
type UnsupportedError struct {
	Provider string
	What     string // what cannot be done, as a gerund phrase: "searching by mentioned members"
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s: %s: %v", e.Provider, e.What, ErrUnsupported)
}

func (e *UnsupportedError) Unwrap() error { return ErrUnsupported }

// Unsupported returns the error a provider gives for a capability it lacks.
func Unsupported(provider, what string) error {
	return &UnsupportedError{Provider: provider, What: what}
}

// ContractName is the Name of Client: the provider contract, served by the built-in sandbox
// or by any upstream that speaks it.
const ContractName = "sandbox"

// Name implements Provider.
func (c *Client) Name() string { return ContractName }

// Check implements Provider: the contract has no account endpoint, so it asks for a profile
// that need not exist. A 401 or 403 is a wrong key; a 404 is a good one.
func (c *Client) Check(ctx context.Context) error {
	var out Profile
	_, err := c.get(ctx, "/profile", url.Values{"username": {"trawl-readiness-check"}}, &out)
	if err == nil || errors.Is(err, source.ErrNotFound) {
		return nil
	}
	return fmt.Errorf("pronet: check key: %w", err)
}

var _ Provider = (*Client)(nil)
