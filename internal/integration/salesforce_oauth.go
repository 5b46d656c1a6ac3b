package integration

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// salesforcePostForm posts a form to an OAuth endpoint through the
// connection's guarded client, without the bearer (Conn.Do sends JSON and
// authorizes), and returns the status and the bounded body. No answer is
// a retryable *Error; the status is the caller's to judge.
func salesforcePostForm(ctx context.Context, c *Conn, target string, form url.Values) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(form.Encode()))
	if err != nil {
		return 0, nil, fmt.Errorf("%s: token URL: %w", c.Type.DisplayName, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return 0, nil, &Error{Service: c.Type.DisplayName, err: fmt.Errorf("renewing the access token: %w", err)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, nil, &Error{Service: c.Type.DisplayName, err: fmt.Errorf("reading the token answer: %w", err)}
	}
	return resp.StatusCode, body, nil
}
