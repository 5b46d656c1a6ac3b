package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// SourceOAuth is a credential obtained through an OAuth flow: an access
// token with the refresh token that renews it (Salesforce).
const SourceOAuth = "oauth"

// SalesforceAPI is the REST API version Trawl speaks, under the instance
// URL (docs/integrations/salesforce-attio.md).
const SalesforceAPI = "/services/data/v60.0"

// salesforceTokenLife is how long an access token is used before it is
// renewed ahead of expiry. Salesforce's token answer carries no expiry:
// the session timeout is the org's setting, 2 hours by default; a shorter
// one is met by the renewal on 401.
const salesforceTokenLife = 105 * time.Minute

// Salesforce connects with the OAuth tokens of a connected app
// (docs/integrations/salesforce-attio.md): requests go to the org's
// instance URL with the access token, renewed with the refresh token.
var Salesforce = &Type{
	Name:        "salesforce",
	DisplayName: "Salesforce",
	Source:      SourceOAuth,
	Fields: []Field{
		{Name: "instance_url", Required: true, MaxLen: 512, Check: salesforceURLProblem,
			Doc: "the org's https URL, https://<domain>.my.salesforce.com (the instance_url of the OAuth token answer)"},
		{Name: "access_token", Required: true, MaxLen: 2048,
			Doc: "an OAuth access token of a connected app (the access_token of the OAuth token answer)"},
		{Name: "refresh_token", MaxLen: 2048,
			Doc: "the OAuth refresh token (needs the refresh_token scope), to renew the access token"},
		{Name: "client_id", MaxLen: 512, Doc: "the connected app's consumer key, to renew the access token"},
		{Name: "client_secret", MaxLen: 512, Doc: "the connected app's consumer secret, to renew the access token"},
		{Name: "login_url", MaxLen: 512, Check: salesforceURLProblem,
			Doc: "where tokens are renewed: https://login.salesforce.com (default), https://test.salesforce.com for a sandbox org, or the org's My Domain URL"},
		{Name: "issued_at", MaxLen: 32,
			Doc: "when the access token was issued, in milliseconds since 1970 (Trawl keeps it when it renews the token)"},
	},
	CredentialURL: func(creds Credentials) string { return strings.TrimSuffix(creds["instance_url"], "/") },
	Probe:         probeSalesforce,
	Authorize:     salesforceAuthorize,
	Renew:         salesforceRenew,
	ErrorMessage:  salesforceErrorMessage,
	Lookups: map[string]LookupFunc{
		"crm-fields":        salesforceFields,
		"crm-field-options": salesforceFieldOptions,
	},
}

func init() { Register(Salesforce) }

// salesforceDefaultLogin is where tokens are renewed when login_url is not given.
const salesforceDefaultLogin = "https://login.salesforce.com"

// salesforceURLProblem accepts an https URL of a Salesforce host, with no
// path beyond "/": the access token is sent there.
func salesforceURLProblem(v string) string {
	u, err := url.Parse(v)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.Trim(u.Path, "/") != "" {
		return "must be an https URL without a path, such as https://<domain>.my.salesforce.com"
	}
	host := strings.ToLower(u.Hostname())
	for _, d := range []string{"salesforce.com", "force.com", "cloudforce.com", "salesforce.mil"} {
		if host == d || strings.HasSuffix(host, "."+d) {
			return ""
		}
	}
	return "must be a Salesforce host (…my.salesforce.com, …force.com)"
}

// salesforceAuthorize sends the access token as a bearer, renewing it
// first when it is older than salesforceTokenLife and can be renewed.
func salesforceAuthorize(ctx context.Context, c *Conn, req *http.Request) error {
	if ms, err := strconv.ParseInt(c.Creds["issued_at"], 10, 64); err == nil && c.Creds["refresh_token"] != "" &&
		c.now().Sub(time.UnixMilli(ms)) > salesforceTokenLife {
		if err := salesforceRefresh(ctx, c); err != nil {
			return err
		}
	}
	req.Header.Set("Authorization", "Bearer "+c.Creds["access_token"])
	return nil
}

// salesforceRenew renews the access token after a 401 (INVALID_SESSION_ID:
// the session expired or was revoked), when there is a refresh token.
// A token issued in the last minute (renewed ahead of expiry in this
// very call) is not renewed again: its refusal is the answer.
func salesforceRenew(ctx context.Context, c *Conn) (bool, error) {
	if c.Creds["refresh_token"] == "" {
		return false, nil
	}
	if ms, err := strconv.ParseInt(c.Creds["issued_at"], 10, 64); err == nil && c.now().Sub(time.UnixMilli(ms)) < time.Minute {
		return false, nil
	}
	return true, salesforceRefresh(ctx, c)
}

// salesforceTokenAnswer is the token endpoint's answer to a refresh.
type salesforceTokenAnswer struct {
	AccessToken      string `json:"access_token"`
	InstanceURL      string `json:"instance_url"`
	IssuedAt         string `json:"issued_at"`
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

// salesforceTokenURL is where the access token is renewed: the login URL,
// unless the connector sends the type elsewhere than the credential's
// instance (the sandbox, an operator's proxy), which then answers it too.
func salesforceTokenURL(c *Conn) string {
	base := strings.TrimSuffix(c.BaseURL, "/")
	if base == strings.TrimSuffix(c.Creds["instance_url"], "/") {
		base = strings.TrimSuffix(c.Creds["login_url"], "/")
		if base == "" {
			base = salesforceDefaultLogin
		}
	}
	return base + "/services/oauth2/token"
}

// salesforceRefresh asks for a new access token with the refresh token
// (OAuth 2.0 refresh token flow, form-encoded), keeps it in c.Creds and
// stores it. A refused refresh token is a rejected credential.
func salesforceRefresh(ctx context.Context, c *Conn) error {
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {c.Creds["refresh_token"]}}
	if id := c.Creds["client_id"]; id != "" {
		form.Set("client_id", id)
	}
	if secret := c.Creds["client_secret"]; secret != "" {
		form.Set("client_secret", secret)
	}
	status, body, err := salesforcePostForm(ctx, c, salesforceTokenURL(c), form)
	if err != nil {
		return err
	}
	var a salesforceTokenAnswer
	_ = json.Unmarshal(body, &a) // an unreadable answer is judged by its status below
	switch {
	case status == http.StatusBadRequest || status == http.StatusUnauthorized:
		// invalid_grant: the refresh token expired or was revoked; the user must connect again.
		return &Error{Service: c.Type.DisplayName, Status: http.StatusUnauthorized,
			Message: strings.TrimSuffix("refresh token refused: "+a.Error+": "+a.ErrorDescription, ": ")}
	case status/100 != 2:
		return &Error{Service: c.Type.DisplayName, Status: status, Message: "renewing the access token: " + a.Error}
	case a.AccessToken == "":
		return &Error{Service: c.Type.DisplayName, Status: http.StatusBadGateway, Message: "renewing the access token: the answer has no access_token"}
	}
	c.Creds["access_token"] = a.AccessToken
	if a.InstanceURL != "" && salesforceURLProblem(a.InstanceURL) == "" {
		c.Creds["instance_url"] = a.InstanceURL
	}
	if _, err := strconv.ParseInt(a.IssuedAt, 10, 64); err == nil {
		c.Creds["issued_at"] = a.IssuedAt
	} else {
		c.Creds["issued_at"] = strconv.FormatInt(c.now().UnixMilli(), 10)
	}
	if c.Save != nil {
		if err := c.Save(ctx, c.Creds); err != nil {
			return fmt.Errorf("Salesforce: storing the renewed access token: %w", err)
		}
	}
	return nil
}

// SalesforceError is one entry of Salesforce's error body, an array.
type SalesforceError struct {
	Message   string   `json:"message"`
	ErrorCode string   `json:"errorCode"`
	Fields    []string `json:"fields"`
}

// ParseSalesforceErrors reads Salesforce's error body: an array of
// {message, errorCode, fields}, or (the OAuth endpoints) one object.
func ParseSalesforceErrors(body []byte) []SalesforceError {
	var list []SalesforceError
	if json.Unmarshal(body, &list) == nil {
		return list
	}
	var one SalesforceError
	if json.Unmarshal(body, &one) == nil && (one.ErrorCode != "" || one.Message != "") {
		return []SalesforceError{one}
	}
	return nil
}

// salesforceErrorMessage is "CODE: message (fields)" of each error, joined.
func salesforceErrorMessage(body []byte) string {
	var parts []string
	for _, e := range ParseSalesforceErrors(body) {
		s := strings.TrimSuffix(e.ErrorCode+": "+e.Message, ": ")
		s = strings.TrimPrefix(s, ": ")
		if len(e.Fields) > 0 {
			s += " (" + strings.Join(e.Fields, ", ") + ")"
		}
		if s != "" {
			parts = append(parts, s)
		}
		if len(parts) == 5 {
			break
		}
	}
	return strings.Join(parts, "; ")
}

// probeSalesforce lists the org's objects (Describe Global), which any
// API-enabled user may: GET /services/data/v60.0/sobjects. (The Limits
// resource needs the "View Setup and Configuration" permission.)
func probeSalesforce(ctx context.Context, c *Conn) error {
	var global struct {
		SObjects []json.RawMessage `json:"sobjects"`
	}
	err := c.Do(ctx, Request{Path: SalesforceAPI + "/sobjects"}, &global)
	var e *Error
	switch {
	case errors.As(err, &e) && e.Status == http.StatusForbidden:
		return fmt.Errorf("Salesforce: the user may not use the API (403 %s)", e.Message)
	case err != nil:
		return err
	case global.SObjects == nil:
		return fmt.Errorf("Salesforce answered 200 without objects (is its URL a Salesforce instance?)")
	}
	return nil
}
