package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Linear connects with a personal API key, sent as the Authorization
// header's whole value (no Bearer: that form is for OAuth tokens).
var Linear = &Type{
	Name:        "linear",
	DisplayName: "Linear",
	Source:      SourceAPIKey,
	Fields: []Field{{
		Name:     "api_key",
		Doc:      "a personal API key (lin_api_…) from Linear's Settings → Account → Security & access → Personal API keys",
		Required: true,
		MaxLen:   512,
	}},
	DefaultURL: "https://api.linear.app",
	Probe:      probeLinear,
	Authorize: func(_ context.Context, c *Conn, req *http.Request) error {
		req.Header.Set("Authorization", c.Creds["api_key"])
		return nil
	},
	ErrorMessage: LinearErrorMessage,
	Lookups: map[string]LookupFunc{
		"teams":  linearTeams,
		"users":  linearUsers,
		"states": linearStates,
	},
}

func init() { Register(Linear) }

// LinearGraphQLError is one entry of a GraphQL answer's errors.
type LinearGraphQLError struct {
	Message    string `json:"message"`
	Extensions struct {
		Type                   string `json:"type"`
		Code                   string `json:"code"`
		UserPresentableMessage string `json:"userPresentableMessage"`
	} `json:"extensions"`
}

// linearErrors reads the errors of a GraphQL answer.
func linearErrors(body []byte) []LinearGraphQLError {
	var a struct {
		Errors []LinearGraphQLError `json:"errors"`
	}
	if json.Unmarshal(body, &a) != nil {
		return nil
	}
	return a.Errors
}

// LinearErrorMessage is "CODE: message" of the first GraphQL error.
func LinearErrorMessage(body []byte) string {
	errs := linearErrors(body)
	if len(errs) == 0 {
		return ""
	}
	e := errs[0]
	msg := e.Message
	if e.Extensions.UserPresentableMessage != "" && e.Extensions.UserPresentableMessage != msg {
		msg += " (" + e.Extensions.UserPresentableMessage + ")"
	}
	if e.Extensions.Code != "" {
		return e.Extensions.Code + ": " + msg
	}
	return msg
}

// linearStatus is the HTTP status a GraphQL error stands for: Linear
// answers 200 or 400 whatever went wrong, and the kind is in extensions.
func linearStatus(e LinearGraphQLError) int {
	code, typ := strings.ToUpper(e.Extensions.Code), strings.ToLower(e.Extensions.Type)
	switch {
	case code == "AUTHENTICATION_ERROR" || typ == "authentication error":
		return http.StatusUnauthorized
	case code == "FORBIDDEN" || typ == "forbidden":
		return http.StatusForbidden
	case code == "RATELIMITED" || typ == "ratelimited":
		return http.StatusTooManyRequests
	case strings.HasPrefix(strings.ToLower(e.Message), "entity not found"):
		return http.StatusNotFound
	}
	return http.StatusBadRequest
}

// LinearQuery posts one GraphQL operation to /graphql and decodes its
// data into out. GraphQL errors become *Error with the status they stand
// for (401 for an authentication error, 429 for RATELIMITED, which is
// tried again like Conn.Do tries a 429).
func LinearQuery(ctx context.Context, c *Conn, op, query string, vars map[string]any, out any) error {
	body := map[string]any{"operationName": op, "query": query, "variables": vars}
	for attempt := 1; ; attempt++ {
		err := linearOnce(ctx, c, body, out)
		// Only RATELIMITED in a GraphQL answer is tried again here: an
		// HTTP 429 was already tried again by Conn.Do.
		if !errors.Is(err, errLinearRateLimited) || attempt >= Attempts || ctx.Err() != nil {
			return err
		}
		wait := time.Duration(attempt) * 500 * time.Millisecond
		if deadline, ok := ctx.Deadline(); ok && c.now().Add(wait).After(deadline) {
			return err
		}
		if c.sleep(ctx, wait) != nil {
			return err
		}
	}
}

// errLinearRateLimited marks a RATELIMITED GraphQL error.
var errLinearRateLimited = errors.New("Linear: RATELIMITED")

func linearError(service string, status int, msg string) *Error {
	e := &Error{Service: service, Status: status, Message: msg}
	if status == http.StatusTooManyRequests {
		e.err = errLinearRateLimited
	}
	return e
}

func linearOnce(ctx context.Context, c *Conn, body map[string]any, out any) error {
	var answer struct {
		Data   json.RawMessage      `json:"data"`
		Errors []LinearGraphQLError `json:"errors"`
	}
	err := c.Do(ctx, Request{Method: http.MethodPost, Path: "/graphql", Body: body}, &answer)
	var e *Error
	if errors.As(err, &e) && e.Status == http.StatusBadRequest {
		// A 400 carries GraphQL errors: give it the status they stand for.
		// Conn.Do kept only the message, whose prefix is the code.
		code, _, _ := strings.Cut(e.Message, ":")
		var g LinearGraphQLError
		g.Extensions.Code = code
		g.Message = e.Message
		if s := linearStatus(g); s != http.StatusBadRequest {
			return linearError(e.Service, s, e.Message)
		}
	}
	if err != nil {
		return err
	}
	if len(answer.Errors) > 0 {
		g := answer.Errors[0]
		raw, _ := json.Marshal(map[string]any{"errors": answer.Errors})
		return linearError(c.Type.DisplayName, linearStatus(g), LinearErrorMessage(raw))
	}
	if out != nil && len(answer.Data) > 0 {
		if err := json.Unmarshal(answer.Data, out); err != nil {
			return &Error{Service: c.Type.DisplayName, Status: http.StatusBadGateway, Message: "answered data that is not what was asked: " + err.Error()}
		}
	}
	return nil
}

// probeLinear asks who the key belongs to: { viewer { id } }.
func probeLinear(ctx context.Context, c *Conn) error {
	var d struct {
		Viewer struct {
			ID string `json:"id"`
		} `json:"viewer"`
	}
	if err := LinearQuery(ctx, c, "Viewer", "query Viewer { viewer { id } }", map[string]any{}, &d); err != nil {
		return err
	}
	if d.Viewer.ID == "" {
		return fmt.Errorf("Linear answered without a viewer (is its URL Linear's API?)")
	}
	return nil
}

type linearNodes[T any] struct {
	Nodes []T `json:"nodes"`
}

type linearUser struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

func linearTeams(ctx context.Context, c *Conn, _ url.Values) (any, error) {
	var d struct {
		Teams linearNodes[struct {
			ID   string `json:"id"`
			Key  string `json:"key"`
			Name string `json:"name"`
		}] `json:"teams"`
	}
	if err := LinearQuery(ctx, c, "Teams", "query Teams { teams(first: 250) { nodes { id key name } } }", map[string]any{}, &d); err != nil {
		return nil, err
	}
	return map[string]any{"teams": d.Teams.Nodes}, nil
}

func linearUsers(ctx context.Context, c *Conn, p url.Values) (any, error) {
	var users []linearUser
	if team := p.Get("team_id"); team != "" {
		var d struct {
			Team struct {
				Members linearNodes[linearUser] `json:"members"`
			} `json:"team"`
		}
		q := "query TeamMembers($teamId: String!) { team(id: $teamId) { members(first: 250) { nodes { id name email } } } }"
		if err := LinearQuery(ctx, c, "TeamMembers", q, map[string]any{"teamId": team}, &d); err != nil {
			return nil, err
		}
		users = d.Team.Members.Nodes
	} else {
		var d struct {
			Users linearNodes[linearUser] `json:"users"`
		}
		if err := LinearQuery(ctx, c, "Users", "query Users { users(first: 250) { nodes { id name email } } }", map[string]any{}, &d); err != nil {
			return nil, err
		}
		users = d.Users.Nodes
	}
	out := make([]linearUser, 0, len(users))
	search := strings.ToLower(p.Get("search"))
	for _, u := range users {
		if search == "" || strings.Contains(strings.ToLower(u.Name), search) || strings.Contains(strings.ToLower(u.Email), search) {
			out = append(out, u)
		}
	}
	return map[string]any{"users": out}, nil
}

func linearStates(ctx context.Context, c *Conn, p url.Values) (any, error) {
	team := p.Get("team_id")
	if team == "" {
		return nil, &ParamError{"team_id", "is required"}
	}
	var d struct {
		Team struct {
			States linearNodes[struct {
				ID   string `json:"id"`
				Name string `json:"name"`
				Type string `json:"type"`
			}] `json:"states"`
		} `json:"team"`
	}
	q := "query TeamStates($teamId: String!) { team(id: $teamId) { states { nodes { id name type } } } }"
	if err := LinearQuery(ctx, c, "TeamStates", q, map[string]any{"teamId": team}, &d); err != nil {
		return nil, err
	}
	return map[string]any{"states": d.Team.States.Nodes}, nil
}
