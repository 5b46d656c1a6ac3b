package workflow

import "github.com/riverqueue/river"

// ExecuteArgs is the River job that advances one execution. Claim is the
// token its enqueuer took; a job whose claim was taken over does nothing.
type ExecuteArgs struct {
	ExecutionID string `json:"execution_id"`
	Claim       string `json:"claim"`
}

// Kind is River's name for the job.
func (ExecuteArgs) Kind() string { return "trawl.workflow.execute" }

// InsertOpts: failures are recorded in the execution, not retried by
// River; a lost worker is replaced through the lease on resume_at.
func (ExecuteArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 1} }
