package workflow

import (
	"errors"
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

// Errors of the execution repository (the store), which the engine acts on.
var (
	// ErrExecutionNotFound means no execution has the id: it was deleted
	// with its workflow.
	ErrExecutionNotFound = errors.New("no such execution")
	// ErrClaimLost means another worker took over the execution, or it was
	// cancelled: the caller must stop advancing it.
	ErrClaimLost = errors.New("execution claim lost")
)

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
