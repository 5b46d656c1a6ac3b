// Package credits names what credits are spent on and the billing period
// they are counted in. The ledger itself lives in the store, where spending
// is one atomic statement on both engines.
package credits

import (
	"errors"
	"fmt"
	"time"
)

// Feature is the key under which spending is summarised in GET /v1/usage.
type Feature string

const (
	SearchCreate      Feature = "search_create"
	ProfilePosts      Feature = "profile_posts"
	CompanyPosts      Feature = "company_posts"
	CompanyComments   Feature = "company_comments"
	ProfileEnrich     Feature = "profile_enrich"
	CompanyEnrich     Feature = "company_enrich"
	PostLookups       Feature = "post_lookups"
	SocialMapping     Feature = "social_mapping"
	DiscoverCreators  Feature = "discover_creators"
	SocialTopics      Feature = "social_topics"
	WorkflowExecution Feature = "workflow_execution"
)

// Features lists every feature, in the order the usage summary shows them.
func Features() []Feature {
	return []Feature{SearchCreate, ProfilePosts, CompanyPosts, CompanyComments, ProfileEnrich,
		CompanyEnrich, PostLookups, SocialMapping, DiscoverCreators, SocialTopics, WorkflowExecution}
}

// ErrInsufficient means the balance of the current period cannot cover a spend.
var ErrInsufficient = errors.New("credits: insufficient credits")

// ShortError is ErrInsufficient with the figures: what a spend needed and
// what the period had left.
type ShortError struct {
	Needed, Available int64
}

func (e *ShortError) Error() string {
	return fmt.Sprintf("credits: insufficient credits: %d needed, %d left", e.Needed, e.Available)
}

// Unwrap makes errors.Is(err, ErrInsufficient) hold.
func (e *ShortError) Unwrap() error { return ErrInsufficient }

// PeriodStart is the start of the billing period containing t: the first
// instant of its UTC calendar month.
func PeriodStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// PeriodEnd is the first instant after the billing period containing t.
func PeriodEnd(t time.Time) time.Time { return PeriodStart(t).AddDate(0, 1, 0) }

// Balance is what an account has in the current period.
type Balance struct {
	PeriodStart time.Time
	Allocation  int64
	Used        int64
}

// Remaining is what can still be spent this period.
func (b Balance) Remaining() int64 { return max(b.Allocation-b.Used, 0) }

// Reallocate is a period's allocation after the account's monthly
// allocation changed from oldMonthly to newMonthly and topUp credits were
// added to this period alone. The period keeps what it had beyond its
// monthly allocation (an earlier top-up) and what it spent: a re-plan moves
// the allocation by the difference, so an upgrade gives this month the
// extra credits at once and a downgrade takes them away, but never below
// what was spent (spent stays spent: the balance is empty until the next
// period, or until a top-up, which then counts in full).
func Reallocate(current, used, oldMonthly, newMonthly, topUp int64) int64 {
	return max(current+newMonthly-oldMonthly+topUp, used)
}

// Charge is a spend made inside another write, so that the write and its
// price commit or fail together.
type Charge struct {
	AccountID  string
	Feature    Feature
	Amount     int64
	Allocation int64
	Reference  string
	// Action is what was paid for, as GET /v1/credits/usage shows it: the
	// endpoint ("POST /v1/profile/enrich") or the workflow step; the
	// feature when empty. WorkflowID and SearchID name the workflow or
	// saved search the spend belongs to, when it belongs to one.
	Action     string
	WorkflowID string
	SearchID   string
	// UpstreamCostMicros is what the upstream calls of the operation cost
	// at the vendor, in millionths of a USD (source.Micros), recorded
	// beside the credits.
	UpstreamCostMicros int64
}

// Cost is money an upstream vendor billed for an operation that charged no
// credits (a failed lookup, a saved search's run, a workflow step), or a
// topic's share of its collection's calls (TopicID and Interval set).
type Cost struct {
	AccountID  string
	Feature    Feature
	Action     string
	Reference  string
	WorkflowID string
	SearchID   string
	TopicID    string
	Interval   string
	Micros     int64
	// At is when it was spent; zero means now.
	At time.Time
}

// Entry is one spend of the ledger.
type Entry struct {
	ID                 string
	Feature            Feature
	Amount             int64
	Action             string
	WorkflowID         string
	SearchID           string
	UpstreamCostMicros int64
	CreatedAt          time.Time
}

// FeatureTotal is what a feature spent in a period, over count spends, and
// what its upstream calls cost (millionths of a USD).
type FeatureTotal struct {
	Feature            Feature
	Total              int64
	Count              int64
	UpstreamCostMicros int64
}
