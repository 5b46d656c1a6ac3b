package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/store"
	"github.com/trawlhq/trawl/internal/workflow"
)

// POST /v1/workflows/{id}/backfill runs a published workflow over the
// events its source stored before it fired (docs/workflows.md, Backfill).

type backfillInput struct {
	ID string `path:"id" doc:"Workflow id."`
	// A pointer: a backfill without a body takes the defaults.
	Body *backfillBody `required:"false"`

	w       workflow.Workflow
	window  workflow.BackfillWindow
	clamped bool // since was raised to the prune floor
	limit   int
	after   *workflow.BackfillCursor
}

type backfillBody struct {
	Since  *string `json:"since,omitempty" doc:"The window's start, RFC 3339, inclusive, by when an event was stored (a result collected, an engagement linked). Default: the source's beginning."`
	Until  *string `json:"until,omitempty" doc:"The window's end, RFC 3339, inclusive; after since. Default: now."`
	Limit  *int    `json:"limit,omitempty" minimum:"1" maximum:"10000" doc:"At most this many events, oldest first (1-10,000; default 100). Events that already fired the workflow count."`
	Cursor *string `json:"cursor,omitempty" doc:"The next_cursor of a truncated answer: continue after its last event (with the same window)."`
	DryRun bool    `json:"dry_run,omitempty" doc:"Count the events and the credits they would cost; queue and change nothing."`
}

func (in *backfillInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *backfillInput) check(hctx huma.Context, s *Server, p *problems) error {
	if in.Body == nil {
		in.Body = &backfillBody{}
	}
	w, err := s.accountWorkflow(hctx.Context(), in.ID)
	if err != nil {
		return err
	}
	in.w = w
	// The source's beginning: nothing is stored before 1970.
	in.window.Since, in.window.Until = time.UnixMilli(0).UTC(), s.now().UTC()
	if b := in.Body; b.Since != nil {
		if in.window.Since, err = parseTimestamp(*b.Since); err != nil {
			p.add("body.since", "%v", err)
		}
	}
	if b := in.Body; b.Until != nil {
		if in.window.Until, err = parseTimestamp(*b.Until); err != nil {
			p.add("body.until", "%v", err)
		}
	}
	if in.Body.Until != nil && !in.window.Until.After(in.window.Since) {
		p.add("body.until", "must be after since (%s)", formatTime(in.window.Since))
	} else if in.Body.Since != nil && !in.window.Until.After(in.window.Since) {
		p.add("body.since", "must be before until (%s, now by default)", formatTime(in.window.Until))
	}
	// Executions are pruned, and their keys with them: an older event
	// might have fired the workflow already, unseen.
	if floor := workflow.BackfillFloor(w, s.now(), s.cfg.ExecutionRetention); in.window.Since.Before(floor) {
		in.window.Since, in.clamped = floor.UTC(), true
	}
	if in.Body.Cursor != nil {
		c, err := workflow.ParseBackfillCursor(*in.Body.Cursor)
		if err != nil {
			p.add("body.cursor", "%v", err)
		}
		in.after = &c
	}
	in.limit = workflow.BackfillDefaultLimit
	if in.Body.Limit != nil {
		in.limit = *in.Body.Limit
	}
	return nil
}

type backfillWindowOut struct {
	Since string `json:"since" doc:"RFC 3339 UTC, inclusive."`
	Until string `json:"until" doc:"RFC 3339 UTC, inclusive."`
}

type backfillOut struct {
	DryRun       bool              `json:"dry_run"`
	Trigger      string            `json:"trigger" doc:"The trigger kind whose events were taken."`
	Window       backfillWindowOut `json:"window"`
	SinceClamped bool              `json:"since_clamped" doc:"True when since was raised to now - TRAWL_EXECUTION_RETENTION: the workflow is older than that, and events before it may have fired it by executions since pruned, which a backfill cannot see."`
	Events       int               `json:"events" doc:"Events of the source in the window taken (at most limit), oldest first."`
	AlreadyFired int               `json:"already_fired" doc:"Of those, events that had fired the workflow already (live or by an earlier backfill): skipped."`
	WouldRun     *int              `json:"would_run,omitempty" doc:"Dry run: the executions a backfill would queue (events - already_fired)."`
	Queued       *int              `json:"queued,omitempty" doc:"Not a dry run: the executions queued; the workers run them as live ones."`
	// Credits are estimated by the catalogue's costs (see
	// workflow.ExecutionCredits): steps are charged as they run.
	CreditsPerExecution int64    `json:"credits_per_execution" doc:"The catalogue cost of one execution: each step's creditCost once (a per-item step counts one item, a skipped branch costs nothing when it runs)."`
	EstimatedCredits    int64    `json:"estimated_credits" doc:"credits_per_execution × the executions (would_run or queued); charged as the steps run, as for live executions."`
	Truncated           bool     `json:"truncated" doc:"The window holds more events than limit: send the same request with cursor = next_cursor for the rest."`
	NextCursor          *string  `json:"next_cursor,omitempty" doc:"When truncated: where the next request continues (after the last event taken)."`
	ExecutionIDs        []string `json:"execution_ids,omitempty" doc:"Not a dry run: the ids of the first 100 executions queued."`
}

// backfillReply answers 200 for a dry run and 202 for queued executions.
type backfillReply struct {
	Status int
	Body   Envelope[backfillOut]
}

func (s *Server) handleBackfill(ctx context.Context, in *backfillInput) (*backfillReply, error) {
	w := in.w
	src, err := workflow.BackfillSourceOf(w)
	if err != nil {
		var nb *workflow.NotBackfillableError
		if errors.As(err, &nb) {
			return nil, NewAPIError(http.StatusConflict, CodeConflict, nb.Message)
		}
		return nil, s.fail(ctx, err)
	}
	// What enabling or test-running it needs: a backfill runs its steps.
	if err := s.keyMayArm(ctx, arming{def: w.Definition, root: "/workflow", searchID: w.SearchID}); err != nil {
		return nil, err
	}
	if err := s.keyMayReadAnySearch(ctx, src); err != nil {
		return nil, err
	}
	q := store.BackfillQuery{AccountID: w.AccountID, Source: src, Window: in.window, After: in.after, Limit: in.limit}
	events, more, err := s.store.BackfillEvents(ctx, q)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	perRun := workflow.ExecutionCredits(w.Definition, s.catalogue)
	out := backfillOut{DryRun: in.Body.DryRun, Trigger: src.Kind, Events: len(events), Truncated: more, SinceClamped: in.clamped,
		CreditsPerExecution: perRun,
		Window:              backfillWindowOut{Since: formatTime(in.window.Since), Until: formatTime(in.window.Until)}}
	if more {
		last := events[len(events)-1]
		next := workflow.BackfillCursor{At: last.At, ID: last.ID}.Encode()
		out.NextCursor = &next
	}
	if in.Body.DryRun {
		keys := make([]string, len(events))
		for i, ev := range events {
			keys[i] = ev.Key
		}
		fired, err := s.store.FiredEventKeys(ctx, w.ID, keys)
		if err != nil {
			return nil, s.fail(ctx, err)
		}
		n := len(events) - len(fired)
		out.AlreadyFired, out.WouldRun, out.EstimatedCredits = len(fired), &n, perRun*int64(n)
		msg := fmt.Sprintf("Dry run: %d executions would be queued", n)
		return &backfillReply{Status: http.StatusOK, Body: Envelope[backfillOut]{Message: msg, Success: true, Data: out}}, nil
	}
	ids, err := s.store.QueueBackfill(ctx, w, src.Kind, events, s.cfg.SearchRunLease)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	n := len(ids)
	out.AlreadyFired, out.Queued, out.EstimatedCredits = len(events)-n, &n, perRun*int64(n)
	out.ExecutionIDs = ids[:min(n, workflow.BackfillListedIDs)]
	msg := fmt.Sprintf("Backfill queued %d executions", n)
	return &backfillReply{Status: http.StatusAccepted, Body: Envelope[backfillOut]{Message: msg, Success: true, Data: out}}, nil
}

// keyMayReadAnySearch: a new-post workflow that links no search fires on
// every search of the account, so backfilling it reads their results,
// which the key must be allowed to (as a test run samples them).
func (s *Server) keyMayReadAnySearch(ctx context.Context, src workflow.BackfillSource) error {
	if src.Kind != workflow.TriggerNewPost || src.SearchID != "" {
		return nil
	}
	acc, _ := s.endpointAccess(workflow.SearchLinkEndpoint)
	if acc.permission == "" || principalFrom(ctx).Key.Has(acc.permission) {
		return nil
	}
	return forbidden(fmt.Sprintf("A backfill of a workflow that links no saved search reads the results of every search of the account, which needs permission %s; the API key lacks it.", acc.permission),
		[]auth.Permission{acc.permission}, Detail{Field: "search_id", Message: "links no saved search"}).WithSuggestion("Link the workflow to one saved search, or use a key with " + string(acc.permission) + ".")
}

// backfillAnswers: a backfill answers 202 (queued for the workers), a dry
// run 200, both with the same body.
func backfillAnswers(op *huma.Operation) {
	op.DefaultStatus = http.StatusAccepted
	alsoAnswers(http.StatusOK, "A dry run: what a backfill would queue and cost; nothing changed.")(op)
}
