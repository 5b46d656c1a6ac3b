package workflow

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/action"
)

// A backfill runs a published workflow over the events its trigger's
// source stored before (or while) it fired: one execution per event, keyed
// as live dispatch keys it, so an event fires a workflow once whichever
// path reaches it first.

// Backfill limits: how many events one request takes.
const (
	BackfillDefaultLimit = 100
	BackfillMaxLimit     = 10_000
	// BackfillListedIDs is how many execution ids an answer lists.
	BackfillListedIDs = 100
)

// BackfillSource is the stored events a workflow's trigger fires on: the
// new posts of a saved search (any of the account's when SearchID is ""),
// or the engagements a topic linked.
type BackfillSource struct {
	Kind     string // TriggerNewPost or TriggerEngagement
	SearchID string
	TopicID  string
}

// NotBackfillableError says why a workflow cannot be backfilled: its
// status, or a trigger whose events are not stored.
type NotBackfillableError struct {
	Trigger string // the trigger kind; "" when the status is the reason
	Message string
}

func (e *NotBackfillableError) Error() string { return e.Message }

// BackfillSourceOf is the source a backfill of w reads, or a
// *NotBackfillableError: only a published workflow whose trigger fires on
// stored events (new posts, topic engagements) can be backfilled. Webhook
// deliveries and schedule occurrences are not kept as events to replay.
func BackfillSourceOf(w Workflow) (BackfillSource, error) {
	if w.Status != StatusPublished {
		return BackfillSource{}, &NotBackfillableError{Message: fmt.Sprintf(
			"Workflow %s is %s: only a PUBLISHED workflow can be backfilled (publish it first).", w.ID, w.Status)}
	}
	kind := w.Definition.TriggerKind()
	switch kind {
	case TriggerNewPost:
		return BackfillSource{Kind: kind, SearchID: w.SearchID}, nil
	case TriggerEngagement:
		topic, _ := w.Definition.Trigger.Inputs["topic_id"].(string)
		return BackfillSource{Kind: kind, TopicID: topic}, nil
	}
	return BackfillSource{}, &NotBackfillableError{Trigger: kind, Message: fmt.Sprintf(
		"The trigger %s has no stored events to backfill: only %s (a saved search's results) and %s (a topic's engagements) do.",
		kind, TriggerNewPost, TriggerEngagement)}
}

// BackfillWindow is the time range of the events a backfill takes, by when
// they were stored, both ends included.
type BackfillWindow struct {
	Since, Until time.Time
}

// BackfillEvent is a stored event a backfill runs a workflow on.
type BackfillEvent struct {
	// Key is the execution's EventKey, the one live dispatch gives it.
	Key     string
	At      time.Time // when it was stored
	ID      string    // the row's id, second in the order after At
	Payload map[string]any
}

// BackfillCursor is where a truncated backfill stopped: the last event
// taken, by (store time, id). One collection stores many events in the
// same millisecond, so a time alone could not continue past them.
type BackfillCursor struct {
	At time.Time
	ID string
}

// Encode is the cursor as the API shows it (opaque).
func (c BackfillCursor) Encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.At.UnixMilli(), 10) + "/" + c.ID))
}

var errBadCursor = errors.New("must be the next_cursor of an earlier backfill's answer")

// ParseBackfillCursor reads an encoded cursor.
func ParseBackfillCursor(s string) (BackfillCursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return BackfillCursor{}, errBadCursor
	}
	at, id, ok := strings.Cut(string(raw), "/")
	ms, err := strconv.ParseInt(at, 10, 64)
	if !ok || err != nil || id == "" {
		return BackfillCursor{}, errBadCursor
	}
	return BackfillCursor{At: time.UnixMilli(ms).UTC(), ID: id}, nil
}

// BackfillExecution is the execution of the live definition that an event
// starts, as live dispatch makes it.
func BackfillExecution(w Workflow, kind string, ev BackfillEvent) Execution {
	return Execution{WorkflowID: w.ID, AccountID: w.AccountID, Version: w.Version, Definition: w.Definition,
		EventName: kind, EventKey: ev.Key, Trigger: ev.Payload}
}

// ExecutionCredits estimates what one execution of the definition costs:
// each step's catalogue cost once. A step charged per item counts one item
// and a loop's body one pass, and a branch not taken costs nothing, so the
// real cost may differ; the trigger itself is free.
func ExecutionCredits(def Definition, cat *action.Catalogue) int64 {
	var n int64
	for _, a := range def.Actions {
		if spec, ok := cat.Lookup(a.Kind); ok {
			n += spec.CreditCost
		}
	}
	return n
}

// BackfillFloor is the earliest event time a backfill of w may take, so
// that no event fires it twice: executions are pruned after retention, and
// with them the keys that say an event fired. An event stored before the
// prune cutoff may have fired w by a pruned execution only if w existed
// then; a younger workflow's executions are all still there. Zero when
// nothing is pruned that could matter.
func BackfillFloor(w Workflow, now time.Time, retention time.Duration) time.Time {
	cutoff := now.Add(-retention)
	if retention <= 0 || !w.CreatedAt.Before(cutoff) {
		return time.Time{}
	}
	return cutoff
}
