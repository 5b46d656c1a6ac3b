package workflow

import (
	"time"
)

// ExecutionStatus is where an execution stands.
type ExecutionStatus string

// Execution statuses.
const (
	ExecutionRunning   ExecutionStatus = "running"
	ExecutionCompleted ExecutionStatus = "completed"
	ExecutionFailed    ExecutionStatus = "failed"
)

// StepStatus is where a step stands.
type StepStatus string

// Step statuses.
const (
	StepPending   StepStatus = "pending"
	StepRunning   StepStatus = "running"
	StepCompleted StepStatus = "completed"
	StepFailed    StepStatus = "failed"
	StepSkipped   StepStatus = "skipped"
)

// ErrCancelled is the error of a cancelled execution.
const ErrCancelled = "cancelled"

// Execution is one run of a workflow on one event.
type Execution struct {
	ID         string
	WorkflowID string
	AccountID  string
	Version    int64
	// Definition is the workflow as it was when the event fired.
	Definition Definition
	EventName  string
	// EventKey makes an event fire a workflow once ("" for test runs).
	EventKey string
	Trigger  map[string]any
	Test     *TestConfig
	Status   ExecutionStatus
	Error    string
	RerunOf  string
	// Claim is the token of the worker entitled to advance it.
	Claim     string
	CreatedAt time.Time
	StartedAt time.Time
	EndedAt   *time.Time
	ResumeAt  *time.Time
}

// TestConfig is how a test run differs from a real one.
type TestConfig struct {
	StrictDataValidation bool            `json:"strict_data_validation"`
	Mocks                map[string]Mock `json:"action_mocks,omitempty"`
}

// Mock replaces a step's action in a test run.
type Mock struct {
	Enabled bool           `json:"enabled"`
	Output  map[string]any `json:"output,omitempty"`
}

// Step is the record of one step of an execution (one per loop item
// inside loops).
type Step struct {
	// Key is the step id, plus #i per enclosing loop item.
	Key          string
	Seq          int
	StepID       string
	Name         string
	Operation    string
	Status       StepStatus
	Attempts     []Attempt
	StartedAt    *time.Time
	EndedAt      *time.Time
	Input        map[string]any
	Output       any
	MappedOutput map[string]any
	Error        *StepError
	// ResumeAt is when a delay step ends.
	ResumeAt *time.Time
}

// Attempt is one try of a step.
type Attempt struct {
	Attempt   int        `json:"attempt"`
	StartedAt time.Time  `json:"started_at"`
	EndedAt   time.Time  `json:"ended_at"`
	Error     *StepError `json:"error,omitempty"`
}

// StepError is why a step failed.
type StepError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// SamplePayload is the event a test run sends when no override says
// otherwise: a plausible event of the trigger kind.
func SamplePayload(kind string, now time.Time) map[string]any {
	switch kind {
	case TriggerEngagement:
		return map[string]any{
			"topic_id": "", "engagement": map[string]any{"type": "comment", "text": "Great points on pipeline hygiene."},
			"prospect": map[string]any{"full_name": "Jane Doe", "job_title": "VP Revenue Operations", "company": "Acme",
				"pronet_url": "https://www.linkedin.com/in/jane-doe", "pronet_urn": "urn:li:fsd_profile:ACoAAJaneDoe"},
			"post": map[string]any{"urn": "urn:li:activity:7263450183458918400", "url": "https://www.linkedin.com/feed/update/urn:li:activity:7263450183458918400/",
				"text": "How we rebuilt our RevOps stack"},
			"engaged_at": now.UTC().Format(time.RFC3339),
		}
	case TriggerWebhook:
		return map[string]any{"event": "lead.created", "email": "jane@example.com"}
	case TriggerScheduled:
		return map[string]any{"scheduled_at": now.UTC().Format(time.RFC3339)}
	}
	return map[string]any{
		"author_url": "https://x.com/jack", "text": "Anyone have a CRM they actually like?",
		"post_url": "https://x.com/jack/status/1858000000000000000", "likes": float64(42), "comments": float64(7),
		"date_posted": now.UTC().Format(time.RFC3339), "source": "microblog",
	}
}
