package app

import (
	"context"
	"fmt"

	"github.com/trawlhq/trawl/internal/action"
	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/secret"
	"github.com/trawlhq/trawl/internal/store"
	wfengine "github.com/trawlhq/trawl/internal/workflow/engine"
)

// newEngine builds the workflow engine of the process.
func newEngine(cfg *config.Config, st *store.Store, box *secret.Box, opts Options) *wfengine.Engine {
	return &wfengine.Engine{
		Repo:      st,
		Catalogue: action.NewCatalogue(),
		Executors: action.Executors(action.Deps{}),
		Secret: func(ctx context.Context, accountID, name string) (string, error) {
			sealed, err := st.SecretValue(ctx, accountID, name)
			if err != nil {
				return "", &action.Error{Code: action.CodeSecret, Message: fmt.Sprintf("the account has no secret %s", name)}
			}
			plain, err := box.Open(sealed, secret.AccountContext(accountID, name))
			if err != nil {
				return "", &action.Error{Code: action.CodeSecret, Message: fmt.Sprintf("secret %s does not open with this service's key", name)}
			}
			return string(plain), nil
		},
		Allocation: func(ctx context.Context, accountID string) (int64, error) {
			a, err := st.Account(ctx, accountID)
			if err != nil {
				return 0, err
			}
			return cfg.MonthlyCredits(a), nil
		},
		Now:   opts.Now,
		Lease: cfg.SearchRunLease,
		Log:   opts.Log,
	}
}
