package action

import (
	"errors"
	"time"
)

// KindDelay parks the execution until a duration has passed or a time has come.
const KindDelay = "builtin:delay"

// MaxDelay is the longest a delay step may wait.
const MaxDelay = 30 * 24 * time.Hour

func delaySpec() Spec {
	return Spec{
		Kind: KindDelay, Name: "Delay", Category: CategoryControlFlow,
		Description: "Waits for a duration (90s, 15m, 2h30m) or until a time (ISO 8601), at most 30 days, without holding a worker; the execution resumes on time across restarts.",
		Inputs: []Input{
			{Name: "duration", Title: "Duration", Type: TypeString, Description: "Go duration syntax: 90s, 15m, 2h30m."},
			{Name: "until", Title: "Until", Type: TypeString, Description: "An ISO 8601 time, e.g. 2026-12-01T09:00:00Z."},
		},
		Check: func(in map[string]any) []Problem {
			d, hasD := in["duration"]
			u, hasU := in["until"]
			var out []Problem
			switch {
			case hasD && hasU:
				return []Problem{problemf("", "give duration or until, not both")}
			case !hasD && !hasU:
				// Either may be a template, which Check does not see.
				return nil
			}
			if s, ok := d.(string); hasD && ok {
				if _, err := ParseDelay(s); err != nil {
					out = append(out, problemf("duration", "%v", err))
				}
			}
			if s, ok := u.(string); hasU && ok {
				if _, err := time.Parse(time.RFC3339, s); err != nil {
					out = append(out, problemf("until", "must be an ISO 8601 time such as 2026-12-01T09:00:00Z"))
				}
			}
			return out
		},
		Outputs: object(map[string]any{"resumed_at": map[string]any{"type": "string", "format": "date-time"}}, "resumed_at"),
	}
}

// ParseDelay reads a delay duration: positive and at most MaxDelay.
func ParseDelay(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, errBadDelay
	}
	if d <= 0 || d > MaxDelay {
		return 0, errBadDelay
	}
	return d, nil
}

var errBadDelay = errors.New("must be a positive duration of at most 720h, written like 90s, 15m or 2h30m")
