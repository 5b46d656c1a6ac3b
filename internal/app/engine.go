package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/trawlhq/trawl/internal/action"
	"github.com/trawlhq/trawl/internal/config"
	"github.com/trawlhq/trawl/internal/credits"
	"github.com/trawlhq/trawl/internal/netguard"
	"github.com/trawlhq/trawl/internal/secret"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/source/enrich"
	"github.com/trawlhq/trawl/internal/source/pronet"
	"github.com/trawlhq/trawl/internal/store"
	wfengine "github.com/trawlhq/trawl/internal/workflow/engine"
)

// newEngine builds the workflow engine of the process.
func newEngine(cfg *config.Config, st *store.Store, sources Sources, box *secret.Box, opts Options) *wfengine.Engine {
	guard := netguard.Options{Allow: cfg.PrivateNetworks()}
	executors := action.Executors(action.Deps{HTTP: netguard.NewClient(guard), Dial: guard.Dialer().DialContext})
	executors[action.KindPersonEnrichment] = meteredAction(st, opts.Log, action.KindPersonEnrichment, action.PersonEnrichment(enricher(cfg, sources)))
	executors[action.KindMicroblogUser] = meteredAction(st, opts.Log, action.KindMicroblogUser, action.MicroblogUser(microblogUser(sources)))
	executors[action.KindPronetPostComments] = meteredAction(st, opts.Log, action.KindPronetPostComments, action.PronetPostComments(postComments(sources)))
	executors[action.KindGenericAgent] = action.GenericAgent(llmClient(sources.LLM, guard))
	return &wfengine.Engine{
		Repo:      st,
		Catalogue: action.NewCatalogue(),
		Executors: executors,
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

// meteredAction records what an action's upstream calls cost at the vendor. The engine
// charges the step's credits with its record; the money is billed on every attempt,
// failed ones included, so each attempt records its own beside the ledger
// (docs/decisions.md, "Upstream cost").
func meteredAction(st *store.Store, log *slog.Logger, kind string, exec action.Executor) action.Executor {
	return func(ctx context.Context, call action.Call) (map[string]any, error) {
		m := &source.Meter{}
		out, err := exec(source.WithMeter(ctx, m), call)
		if m.Total() <= 0 {
			return out, err
		}
		// The engine keys a step's calls "<execution id>:<step key>".
		execID, step, _ := strings.Cut(call.IdempotencyKey, ":")
		c := credits.Cost{AccountID: call.AccountID, Feature: credits.WorkflowExecution, Action: "workflow step " + step + " (" + kind + ")",
			Reference: execID + "/" + step, Micros: int64(m.Total())}
		wctx := context.WithoutCancel(ctx)
		if x, _, xerr := st.Execution(wctx, execID); xerr == nil {
			c.WorkflowID = x.WorkflowID
		}
		if rerr := st.RecordCost(wctx, c); rerr != nil && log != nil {
			log.Error("record upstream cost of a workflow step", "execution_id", execID, "step", step, "error", rerr)
		}
		return out, err
	}
}

// llmClient asks the model of generic_agent steps through the guarded
// dialer. Its URL is the operator's, never a definition's, and it follows
// no redirect; so when it is the sandbox's (on loopback) exactly that
// address is let through, for this client only.
func llmClient(ep LLMEndpoint, guard netguard.Options) *action.LLM {
	if ep.Sandbox {
		if u, err := url.Parse(ep.URL); err == nil {
			if a, err := netip.ParseAddr(u.Hostname()); err == nil {
				guard.Allow = append(slices.Clone(guard.Allow), netip.PrefixFrom(a, a.BitLen()))
			}
		}
	}
	hc := netguard.NewClient(guard)
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &action.LLM{BaseURL: ep.URL, APIKey: ep.Key, Model: ep.Model, HTTP: hc}
}

// enricher looks people up for the person_enrichment action, with the
// same two upstreams as POST /v1/profile/enrich.
func enricher(cfg *config.Config, sources Sources) action.Enricher {
	return func(ctx context.Context, profileURL string) (map[string]any, error) {
		username, err := pronet.ParseProfileURL(profileURL, cfg.PronetHosts)
		if err != nil {
			return nil, &action.Error{Code: action.CodeInvalidInput, Message: "profile_url must be a profile URL such as https://www.linkedin.com/in/jane-doe"}
		}
		person, pdlErr := sources.Enrich.PersonByProfile(ctx, pronet.ProfileURL(username))
		profile, profileErr := sources.Pronet.Profile(ctx, username)
		for _, err := range []error{profileErr, pdlErr} {
			if err != nil && !errors.Is(err, source.ErrNotFound) {
				return nil, err
			}
		}
		if profileErr != nil && pdlErr != nil {
			return nil, &action.Error{Code: action.CodeNotFound, Message: "no profile at " + pronet.ProfileURL(username)}
		}
		prospect, experience := enrich.BuildProspect(person, profile)
		raw, err := json.Marshal(map[string]any{"prospect": prospect, "experience": experience})
		if err != nil {
			return nil, err
		}
		var out map[string]any
		if err := json.Unmarshal(raw, &out); err != nil {
			return nil, err
		}
		// The step's prospect carries the work email a CRM keys contacts by
		// (the endpoint's prospect has no email field).
		if p, ok := out["prospect"].(map[string]any); ok {
			p["work_email"] = person.WorkEmail
		}
		return out, nil
	}
}

// lookupError gives a connector failure the execution log's shape: a
// missing object is final, anything else may be retried.
func lookupError(what string, err error) error {
	if errors.Is(err, source.ErrNotFound) {
		return &action.Error{Code: action.CodeNotFound, Message: what + " does not exist"}
	}
	return err
}

// microblogUser reads a microblog account for microblog_get_user.
func microblogUser(sources Sources) action.Lookup {
	return func(ctx context.Context, username string) (map[string]any, error) {
		u, err := sources.Microblog.UserByUsername(ctx, username)
		if err != nil {
			return nil, lookupError("the account @"+username, err)
		}
		out := map[string]any{"id": u.ID, "username": u.Username, "name": u.Name, "description": "",
			"profile_url": "https://x.com/" + u.Username, "avatar": u.ProfileImageURL, "verified": u.Verified}
		if m := u.PublicMetrics; m != nil {
			out["followers_count"], out["following_count"] = float64(m.FollowersCount), float64(m.FollowingCount)
		}
		return out, nil
	}
}

// postComments reads a pronet post's first page of comments for
// pronet_get_post_comments.
func postComments(sources Sources) action.Lookup {
	return func(ctx context.Context, post string) (map[string]any, error) {
		urn, err := pronet.ParsePostURN(post)
		if err != nil {
			return nil, &action.Error{Code: action.CodeInvalidInput, Message: "post_urn must be urn:li:activity:…, the numeric id or the post URL"}
		}
		page, err := sources.Pronet.Comments(ctx, urn, 1, 0)
		if err != nil {
			return nil, lookupError("the post "+urn, err)
		}
		// Capped as POST /v1/company/comments caps them: each is charged.
		cs := page.Comments[:min(len(page.Comments), action.MaxLookupItems)]
		comments := make([]any, 0, len(cs))
		for _, c := range cs {
			comments = append(comments, map[string]any{"text": c.Text, "created_at": c.CreatedAtString,
				"author_name": c.Author.Name, "author_headline": c.Author.Title, "author_url": c.Author.PronetURL, "author_urn": c.Author.URN})
		}
		return map[string]any{"comments": comments, "count": float64(len(comments))}, nil
	}
}
