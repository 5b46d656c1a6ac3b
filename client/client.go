// Package client is a small Go client of the Trawl API. The end-to-end tests
// drive the real server through it.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Client calls one Trawl server with one API key.
type Client struct {
	BaseURL string
	APIKey  string
	HTTP    *http.Client
}

// New returns a client of the server at baseURL.
func New(baseURL, apiKey string) *Client {
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), APIKey: apiKey, HTTP: http.DefaultClient}
}

// WithKey returns a copy of the client that sends another key.
func (c *Client) WithKey(key string) *Client {
	cp := *c
	cp.APIKey = key
	return &cp
}

// Response is a raw answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Detail is one problem of a request, as the error model names it.
type Detail struct {
	Field   string `json:"field"`
	Message string `json:"message"`
	Pointer string `json:"pointer,omitempty"`
}

// ErrorDetails is the details object of an error answer: the fields at
// fault, and what a refusal is about (a permission, plans, credits, a quota).
type ErrorDetails struct {
	Fields      []Detail `json:"fields,omitempty"`
	Permission  string   `json:"permission,omitempty"`
	Permissions []string `json:"permissions,omitempty"`
	Plan        string   `json:"plan,omitempty"`
	Feature     string   `json:"feature,omitempty"`
	Plans       []string `json:"plans,omitempty"`
	Needed      *int64   `json:"needed,omitempty"`
	Available   *int64   `json:"available,omitempty"`
	Limit       *int64   `json:"limit,omitempty"`
	Used        *int64   `json:"used,omitempty"`
}

// APIError is an error answer.
type APIError struct {
	Status     int
	Message    string `json:"message"`
	Code       string `json:"code"`
	Suggestion string `json:"suggestion"`
	// Details are the field problems (error.details.fields); More is the
	// whole details object, nil when the answer had none.
	Details []Detail      `json:"-"`
	More    *ErrorDetails `json:"details"`
	// RetryAfterSeconds is error.retryAfterSeconds, on every 429.
	RetryAfterSeconds *int64 `json:"retryAfterSeconds"`
}

func (e *APIError) Error() string {
	return fmt.Sprintf("trawl: %d %s: %s", e.Status, e.Code, e.Message)
}

// HasField reports whether a detail names the field.
func (e *APIError) HasField(field string) bool {
	for _, d := range e.Details {
		if d.Field == field {
			return true
		}
	}
	return false
}

// HasPointer reports whether a detail points at the body location ptr.
func (e *APIError) HasPointer(ptr string) bool {
	for _, d := range e.Details {
		if d.Pointer == ptr {
			return true
		}
	}
	return false
}

// Err returns the response's error, or nil for a 2xx.
func (r *Response) Err() *APIError {
	if r.Status >= 200 && r.Status < 300 {
		return nil
	}
	var body struct {
		Error APIError `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &body)
	body.Error.Status = r.Status
	if body.Error.More != nil {
		body.Error.Details = body.Error.More.Fields
	}
	return &body.Error
}

// Data decodes the envelope's data member into v.
func (r *Response) Data(v any) error {
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(r.Body, &env); err != nil {
		return fmt.Errorf("trawl: decode envelope: %w", err)
	}
	if err := json.Unmarshal(env.Data, v); err != nil {
		return fmt.Errorf("trawl: decode data: %w", err)
	}
	return nil
}

// Do sends a request; body is marshalled to JSON unless it is nil, a
// []byte or a string (sent as they are). Only transport failures are errors:
// an error status is in the Response.
func (c *Client) Do(ctx context.Context, method, path string, body any) (*Response, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			return nil, fmt.Errorf("trawl: encode body: %w", err)
		}
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, rd)
	if err != nil {
		return nil, fmt.Errorf("trawl: %w", err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.APIKey != "" {
		req.Header.Set("x-api-key", c.APIKey)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("trawl: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("trawl: read %s %s: %w", method, path, err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: data}, nil
}

// call sends a request and decodes the data of a success into out.
func (c *Client) call(ctx context.Context, method, path string, body, out any) error {
	r, err := c.Do(ctx, method, path, body)
	if err != nil {
		return err
	}
	if apiErr := r.Err(); apiErr != nil {
		return apiErr
	}
	if out == nil {
		return nil
	}
	return r.Data(out)
}

// Usage is the usage summary.
type Usage struct {
	Period struct {
		Start string `json:"start"`
		End   string `json:"end"`
		From  string `json:"from"`
		To    string `json:"to"`
	} `json:"period"`
	Credits struct {
		TotalConsumed int64            `json:"total_consumed"`
		ByFeature     map[string]int64 `json:"by_feature"`
	} `json:"credits"`
	Monitors struct {
		Active int64 `json:"active"`
		Total  int64 `json:"total"`
	} `json:"monitors"`
	Results struct {
		TotalCollected int64 `json:"total_collected"`
	} `json:"results"`
}

// Usage returns the usage summary; from and to may be empty.
func (c *Client) Usage(ctx context.Context, from, to string) (Usage, error) {
	q := url.Values{}
	if from != "" {
		q.Set("from", from)
	}
	if to != "" {
		q.Set("to", to)
	}
	var u Usage
	path := "/v1/usage"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return u, c.call(ctx, http.MethodGet, path, nil, &u)
}
