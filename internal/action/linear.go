package action

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"net/http"

	"github.com/trawlhq/trawl/internal/integration"
)

// KindLinearCreateIssue creates an issue in a Linear team.
const KindLinearCreateIssue = "linear_create_issue"

// linearSpecs are the Linear actions.
func linearSpecs() []Spec {
	return []Spec{{
		Kind: KindLinearCreateIssue, Name: "Create Linear issue", Category: CategoryIntegration, Connection: "linear",
		Description: "Creates an issue in a team of the connected Linear workspace (GraphQL issueCreate). The issue's id is derived from the step's idempotency key, so a retried or resumed step finds the issue it created instead of adding a second.",
		Inputs: []Input{
			{Name: "team_id", Title: "Team", Required: true, Type: TypeString, Description: "The team's id (GET /v1/integrations/linear/teams)."},
			{Name: "title", Title: "Title", Required: true, Type: TypeString},
			{Name: "description", Title: "Description", Type: TypeString, Description: "Markdown."},
			{Name: "assignee_id", Title: "Assignee", Type: TypeString, Description: "A user's id (GET /v1/integrations/linear/users)."},
			{Name: "state_id", Title: "State", Type: TypeString, Description: "A workflow state of the team (GET /v1/integrations/linear/states)."},
			{Name: "priority", Title: "Priority", Type: TypeNumber, Description: "0 none, 1 urgent, 2 high, 3 medium, 4 low."},
			{Name: "label_ids", Title: "Labels", Type: TypeStringArray, Description: "Ids of issue labels."},
		},
		Check: func(in map[string]any) []Problem {
			if p, ok := in["priority"].(float64); ok && (p != math.Trunc(p) || p < 0 || p > 4) {
				return []Problem{problemf("priority", "must be a whole number from 0 to 4")}
			}
			return nil
		},
		Outputs: object(map[string]any{
			"id":         typed("string", "The issue's id (a UUID)."),
			"identifier": typed("string", "The issue's identifier (ENG-123)."),
			"url":        typed("string", "The issue's URL."),
			"created":    typed("boolean", "False when an earlier attempt of the step had already created it."),
		}, "id", "identifier", "url", "created"),
		Run: linearCreateIssueRun,
	}}
}

const linearIssueFields = "id identifier url"

type linearIssue struct {
	ID         string `json:"id"`
	Identifier string `json:"identifier"`
	URL        string `json:"url"`
}

func linearCreateIssueRun(ctx context.Context, call Call) (map[string]any, error) {
	c, err := connection(ctx, call, "linear")
	if err != nil {
		return nil, err
	}
	in := call.Inputs
	input := map[string]any{"teamId": inputString(in, "team_id"), "title": inputString(in, "title")}
	if input["teamId"] == "" || input["title"] == "" {
		return nil, failf(CodeInvalidInput, false, "team_id and title are required")
	}
	for k, name := range map[string]string{"description": "description", "assigneeId": "assignee_id", "stateId": "state_id"} {
		if v := inputString(in, name); v != "" {
			input[k] = v
		}
	}
	if p, ok := in["priority"]; ok && p != nil {
		f, isNum := p.(float64)
		if !isNum || f != math.Trunc(f) || f < 0 || f > 4 {
			return nil, failf(CodeInvalidInput, false, "priority must be a whole number from 0 to 4, not %v", p)
		}
		input["priority"] = int(f)
	}
	if labels, ok := in["label_ids"].([]any); ok && len(labels) > 0 {
		input["labelIds"] = labels
	}
	id := linearIssueID(call.IdempotencyKey)
	if id != "" {
		input["id"] = id
	}
	var d struct {
		IssueCreate struct {
			Success bool         `json:"success"`
			Issue   *linearIssue `json:"issue"`
		} `json:"issueCreate"`
	}
	q := "mutation IssueCreate($input: IssueCreateInput!) { issueCreate(input: $input) { success issue { " + linearIssueFields + " } } }"
	err = integration.LinearQuery(ctx, c, "IssueCreate", q, map[string]any{"input": input}, &d)
	var e *integration.Error
	if errors.As(err, &e) && e.Status == http.StatusBadRequest && id != "" {
		// Refused: perhaps because an earlier attempt created the issue
		// with this id and its answer was lost. Then that issue is the
		// step's result; else the refusal stands.
		if is, ferr := linearFindIssue(ctx, c, id); ferr == nil && is != nil {
			return linearOutput(is, false), nil
		}
	}
	if err != nil {
		return nil, serviceFailure(err)
	}
	if !d.IssueCreate.Success || d.IssueCreate.Issue == nil {
		return nil, failf(CodeUpstream, false, "Linear answered issueCreate without an issue")
	}
	return linearOutput(d.IssueCreate.Issue, true), nil
}

func linearOutput(is *linearIssue, created bool) map[string]any {
	return map[string]any{"id": is.ID, "identifier": is.Identifier, "url": is.URL, "created": created}
}

// linearFindIssue reads the issue of that id; nil when there is none.
func linearFindIssue(ctx context.Context, c *integration.Conn, id string) (*linearIssue, error) {
	var d struct {
		Issue *linearIssue `json:"issue"`
	}
	err := integration.LinearQuery(ctx, c, "Issue", "query Issue($id: String!) { issue(id: $id) { "+linearIssueFields+" } }", map[string]any{"id": id}, &d)
	var e *integration.Error
	if errors.As(err, &e) && e.Status == http.StatusNotFound {
		return nil, nil
	}
	return d.Issue, err
}

// linearIssueID is a UUID v4-shaped id that is a function of the step's
// idempotency key: Linear takes a client id on create, and refuses a
// second create with it.
func linearIssueID(key string) string {
	if key == "" {
		return ""
	}
	h := sha256.Sum256([]byte("trawl/linear_create_issue/" + key))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}
