package integration

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// SourceServiceAccount is a service account's JSON key pasted by the user
// (Google Cloud).
const SourceServiceAccount = "service_account"

// Google's hosts: the Sheets API (v4) is the type's base URL; Drive (v3),
// which lists the spreadsheets shared with the account, is another host.
const (
	googleSheetsURL = "https://sheets.googleapis.com"
	googleDriveURL  = "https://www.googleapis.com"
	// GoogleScopes are what the token is asked for: reading and writing
	// spreadsheets, and listing them (Drive, read only).
	GoogleScopes = "https://www.googleapis.com/auth/spreadsheets https://www.googleapis.com/auth/drive.readonly"
	// googleTokenRenewal renews a cached access token this long before
	// it expires, so a call never starts with a token about to die.
	googleTokenRenewal = 5 * time.Minute
)

// Keys of the cached access token in the connection's credentials; they
// are not fields a user may post (Validate refuses them).
const (
	googleTokenKey   = "access_token"
	googleExpiresKey = "access_token_expires_at"
)

// GoogleSheets connects with a Google Cloud service account's JSON key;
// each spreadsheet must be shared with the account's client_email
// (docs/integrations/sheets-airtable.md).
var GoogleSheets = &Type{
	Name:        "google_sheets",
	DisplayName: "Google Sheets",
	Source:      SourceServiceAccount,
	Fields: []Field{{
		Name: "service_account_json",
		Doc: "the JSON key file of a Google Cloud service account (IAM & Admin → Service accounts → Keys → Add key → JSON), " +
			"pasted whole; share each spreadsheet with its client_email",
		Required:  true,
		MaxLen:    16 << 10,
		Multiline: true,
		Check: func(v string) string {
			if _, err := ParseServiceAccountKey(v); err != nil {
				return err.Error()
			}
			return ""
		},
	}},
	DefaultURL:   googleSheetsURL,
	Probe:        probeGoogleSheets,
	Authorize:    googleAuthorize,
	ErrorMessage: googleErrorMessage,
	Lookups: map[string]LookupFunc{
		"documents": sheetsDocuments,
		"sheets":    sheetsSheets,
		"columns":   sheetsColumns,
	},
}

func init() { Register(GoogleSheets) }

// ServiceAccountKey is the part of a service account's JSON key Trawl uses.
type ServiceAccountKey struct {
	Type         string `json:"type"`
	ProjectID    string `json:"project_id"`
	PrivateKeyID string `json:"private_key_id"`
	PrivateKey   string `json:"private_key"`
	ClientEmail  string `json:"client_email"`
	TokenURI     string `json:"token_uri"`
	key          *rsa.PrivateKey
}

// ParseServiceAccountKey reads a JSON key file. Its errors name what is
// wrong, never a value of the key.
func ParseServiceAccountKey(s string) (*ServiceAccountKey, error) {
	var k ServiceAccountKey
	if err := json.Unmarshal([]byte(s), &k); err != nil {
		return nil, errors.New("is not a JSON key file (it does not parse as JSON)")
	}
	switch {
	case k.Type != "service_account":
		return nil, errors.New(`is not a service account's key (its "type" is not "service_account")`)
	case !strings.Contains(k.ClientEmail, "@"):
		return nil, errors.New(`lacks the service account's "client_email"`)
	case k.TokenURI == "":
		return nil, errors.New(`lacks "token_uri"`)
	}
	if u, err := url.Parse(k.TokenURI); err != nil || u.Scheme != "https" || u.Host == "" {
		return nil, errors.New(`has a "token_uri" that is not an https URL`)
	}
	block, _ := pem.Decode([]byte(k.PrivateKey))
	if block == nil {
		return nil, errors.New(`has no PEM "private_key"`)
	}
	var key any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return nil, errors.New(`has a "private_key" that is not a PEM private key`)
	}
	if err != nil {
		return nil, errors.New(`has a "private_key" that does not parse`)
	}
	rk, ok := key.(*rsa.PrivateKey)
	if !ok || rk.N.BitLen() < 2048 {
		return nil, errors.New(`has a "private_key" that is not an RSA key of 2048 bits or more`)
	}
	k.key = rk
	return &k, nil
}

// Assertion is the RS256-signed JWT of the OAuth 2.0 JWT bearer flow for
// service accounts: the account asks the token endpoint aud for scopes.
func (k *ServiceAccountKey) Assertion(aud string, now time.Time) (string, error) {
	header, _ := json.Marshal(map[string]string{"alg": "RS256", "typ": "JWT", "kid": k.PrivateKeyID})
	claims, _ := json.Marshal(map[string]any{
		"iss": k.ClientEmail, "scope": GoogleScopes, "aud": aud,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	})
	enc := base64.RawURLEncoding
	signing := enc.EncodeToString(header) + "." + enc.EncodeToString(claims)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, k.key, crypto.SHA256, sum[:])
	if err != nil {
		return "", fmt.Errorf("google sheets: signing the assertion: %w", err)
	}
	return signing + "." + enc.EncodeToString(sig), nil
}

// googleLive tells whether c reaches Google itself (not the sandbox or a
// proxy, where every API is under the base URL).
func googleLive(c *Conn) bool {
	u := strings.TrimSuffix(c.BaseURL, "/")
	return u == googleSheetsURL || u == googleDriveURL
}

// googleAuthorize sends the cached access token, or first gets one from
// the token endpoint when there is none or it expires within 5 minutes.
func googleAuthorize(ctx context.Context, c *Conn, req *http.Request) error {
	token := c.Creds[googleTokenKey]
	exp, err := time.Parse(time.RFC3339, c.Creds[googleExpiresKey])
	if token == "" || err != nil || !c.now().Add(googleTokenRenewal).Before(exp) {
		if token, err = googleToken(ctx, c); err != nil {
			return err
		}
	}
	req.Header.Set("Authorization", "Bearer "+token)
	return nil
}

// googleToken exchanges a signed assertion for an access token, keeps it
// in the connection's credentials and saves them.
func googleToken(ctx context.Context, c *Conn) (string, error) {
	key, err := ParseServiceAccountKey(c.Creds["service_account_json"])
	if err != nil {
		return "", fmt.Errorf("Google Sheets: the service account key %w", err)
	}
	endpoint := key.TokenURI
	if !googleLive(c) {
		endpoint = strings.TrimSuffix(c.BaseURL, "/") + "/token"
	}
	assertion, err := key.Assertion(key.TokenURI, c.now())
	if err != nil {
		return "", err
	}
	form := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {assertion}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return "", fmt.Errorf("Google Sheets: token request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", &Error{Service: c.Type.DisplayName, err: fmt.Errorf("token endpoint: %w", err)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return "", &Error{Service: c.Type.DisplayName, err: fmt.Errorf("reading the token endpoint's answer: %w", err)}
	}
	var tok struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int64  `json:"expires_in"`
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	_ = json.Unmarshal(body, &tok)
	if resp.StatusCode/100 != 2 || tok.AccessToken == "" {
		e := &Error{Service: c.Type.DisplayName, Status: resp.StatusCode, RetryAfter: retryAfter(resp.Header.Get("Retry-After"), c.now()),
			Message: strings.TrimSuffix("token endpoint: "+tok.Error+": "+tok.Description, ": ")}
		// invalid_grant and invalid_client mean the key itself is refused
		// (deleted, disabled, wrong signature): a rejected credential.
		if resp.StatusCode == http.StatusBadRequest && (tok.Error == "invalid_grant" || tok.Error == "invalid_client" || tok.Error == "unauthorized_client") ||
			resp.StatusCode == http.StatusUnauthorized {
			e.Status = http.StatusUnauthorized
		}
		if resp.StatusCode/100 == 2 {
			e.Status, e.Message = http.StatusBadGateway, "token endpoint answered without an access_token"
		}
		return "", e
	}
	if tok.ExpiresIn <= 0 {
		tok.ExpiresIn = 3600
	}
	creds := maps.Clone(c.Creds)
	creds[googleTokenKey] = tok.AccessToken
	creds[googleExpiresKey] = c.now().Add(time.Duration(tok.ExpiresIn) * time.Second).UTC().Format(time.RFC3339)
	c.Creds = creds
	if c.Save != nil {
		// A token that cannot be saved still works for this call.
		_ = c.Save(ctx, maps.Clone(creds))
	}
	return tok.AccessToken, nil
}

// googleError is Google's error body: {"error": {"code", "message", "status"}}.
type googleError struct {
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	} `json:"error"`
}

// googleErrorMessage is "STATUS: message" of Google's error body.
func googleErrorMessage(body []byte) string {
	var e googleError
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	switch {
	case e.Error.Status != "" && e.Error.Message != "":
		return e.Error.Status + ": " + e.Error.Message
	case e.Error.Status != "":
		return e.Error.Status
	}
	return e.Error.Message
}

// probeGoogleSheets gets a token and lists one spreadsheet shared with the
// account: the key works and Drive is enabled for its project.
func probeGoogleSheets(ctx context.Context, c *Conn) error {
	var list driveFileList
	d := c.driveConn()
	err := d.Do(ctx, Request{Path: "/drive/v3/files", Query: url.Values{"pageSize": {"1"}, "q": {sheetsMimeQuery}, "fields": {"files(id,name)"}}}, &list)
	c.Creds = d.Creds // the token Drive's call got
	var e *Error
	if errors.As(err, &e) && e.Status == http.StatusForbidden {
		return fmt.Errorf("Google Sheets: the service account may not list files; is the Drive API enabled for its project? (403 %s)", e.Message)
	}
	return err
}

// driveConn is c aimed at Drive: Google's other host, or the same base
// elsewhere.
func (c *Conn) driveConn() *Conn {
	if strings.TrimSuffix(c.BaseURL, "/") != googleSheetsURL {
		return c
	}
	d := *c
	d.BaseURL = googleDriveURL
	return &d
}

// rowOfRange is the first row number of an A1 range Sheets answered
// ("'Sheet 1'!A5:C5" → 5); 0 when it names none.
func rowOfRange(a1 string) int {
	if i := strings.LastIndexByte(a1, '!'); i >= 0 {
		a1 = a1[i+1:]
	}
	a1, _, _ = strings.Cut(a1, ":")
	a1 = strings.TrimLeft(a1, "$ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
	a1 = strings.TrimPrefix(a1, "$")
	n, err := strconv.Atoi(a1)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// RowOfRange is rowOfRange for the actions.
func RowOfRange(a1 string) int { return rowOfRange(a1) }
