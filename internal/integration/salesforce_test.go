package integration_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/integration"
	"github.com/trawlhq/trawl/internal/sandbox"
)

func TestSalesforceValidation(t *testing.T) {
	ok := integration.Credentials{"instance_url": "https://acme.my.salesforce.com", "access_token": "00D!x"}
	for _, tc := range []struct {
		name  string
		creds integration.Credentials
		want  []string
	}{
		{"ok", ok, nil},
		{"all fields", integration.Credentials{"instance_url": "https://acme.my.salesforce.com/", "access_token": "a", "refresh_token": "r",
			"client_id": "id", "client_secret": "s", "login_url": "https://test.salesforce.com", "issued_at": "1700000000000"}, nil},
		{"missing", integration.Credentials{}, []string{"instance_url", "access_token"}},
		{"http", integration.Credentials{"instance_url": "http://acme.my.salesforce.com", "access_token": "a"}, []string{"instance_url"}},
		{"not salesforce", integration.Credentials{"instance_url": "https://evil.example.com", "access_token": "a"}, []string{"instance_url"}},
		{"suffix trick", integration.Credentials{"instance_url": "https://evilsalesforce.com", "access_token": "a"}, []string{"instance_url"}},
		{"path", integration.Credentials{"instance_url": "https://acme.my.salesforce.com/services", "access_token": "a"}, []string{"instance_url"}},
		{"bad login", integration.Credentials{"instance_url": "https://acme.my.salesforce.com", "access_token": "a", "login_url": "https://login.example.org"}, []string{"login_url"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, fe := range integration.Salesforce.Validate(tc.creds) {
				got = append(got, fe.Field)
				if strings.Contains(fe.Message, "evil") {
					t.Errorf("message %q echoes the value", fe.Message)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("problems in %v, want %v", got, tc.want)
			}
		})
	}
	if integration.Salesforce.Source != integration.SourceOAuth {
		t.Fatalf("source %q", integration.Salesforce.Source)
	}
	k := &integration.Connector{}
	if u := k.URL(integration.Salesforce, ok); u != "https://acme.my.salesforce.com" {
		t.Fatalf("URL = %q, want the instance", u)
	}
}

// salesforceConn is a connection to the sandbox's Salesforce whose saves are counted.
func salesforceConn(t *testing.T, srv *httptest.Server, creds integration.Credentials, saves *[]integration.Credentials, now func() time.Time) *integration.Conn {
	k := &integration.Connector{HTTP: srv.Client(), URLs: map[string]string{"salesforce": srv.URL + "/salesforce"}, Now: now,
		Sleep: func(context.Context, time.Duration) error { return nil },
		Save: func(_ context.Context, _, _ string, c integration.Credentials) error {
			*saves = append(*saves, maps(c))
			return nil
		}}
	return k.Conn(integration.Salesforce, creds, "acct-1")
}

func maps(c integration.Credentials) integration.Credentials {
	out := integration.Credentials{}
	for k, v := range c {
		out[k] = v
	}
	return out
}

func TestSalesforceProbeAndRefresh(t *testing.T) {
	var tokenCalls atomic.Int32
	sb := sandbox.New(sandbox.Config{Seed: 1}).Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/services/oauth2/token") {
			tokenCalls.Add(1)
		}
		sb.ServeHTTP(w, r)
	}))
	defer srv.Close()
	base := integration.Credentials{"instance_url": "https://acme.my.salesforce.com", "client_id": "cid", "client_secret": "cs"}
	with := func(kv ...string) integration.Credentials {
		c := maps(base)
		for i := 0; i < len(kv); i += 2 {
			c[kv[i]] = kv[i+1]
		}
		return c
	}
	var saves []integration.Credentials

	// A working token: no refresh.
	if err := integration.Salesforce.Probe(t.Context(), salesforceConn(t, srv, with("access_token", "00Dgood"), &saves, nil)); err != nil {
		t.Fatalf("good token: %v", err)
	}
	// An expired token without a refresh token: rejected.
	err := integration.Salesforce.Probe(t.Context(), salesforceConn(t, srv, with("access_token", "expired-1"), &saves, nil))
	if !errors.Is(err, integration.ErrRejected) || !strings.Contains(err.Error(), "INVALID_SESSION_ID") {
		t.Fatalf("expired token: %v", err)
	}
	// An expired token with a refresh token: one refresh, then it works, and the new token is saved.
	c := salesforceConn(t, srv, with("access_token", "expired-2", "refresh_token", "rt-1"), &saves, nil)
	if err := integration.Salesforce.Probe(t.Context(), c); err != nil {
		t.Fatalf("refreshed: %v", err)
	}
	if tokenCalls.Load() != 1 || len(saves) != 1 || saves[0]["access_token"] == "expired-2" || saves[0]["issued_at"] == "" ||
		c.Creds["access_token"] != saves[0]["access_token"] || saves[0]["refresh_token"] != "rt-1" {
		t.Fatalf("token calls %d, saves %v", tokenCalls.Load(), saves)
	}
	// The renewed token works without another refresh.
	if err := integration.Salesforce.Probe(t.Context(), c); err != nil || tokenCalls.Load() != 1 {
		t.Fatalf("second call: %v, %d token calls", err, tokenCalls.Load())
	}
	// Past its life, it is renewed before the call (the sandbox expires it after 2 h).
	later := func() time.Time { return time.Now().Add(3 * time.Hour) }
	c2 := salesforceConn(t, srv, maps(c.Creds), &saves, later)
	c2.Creds["issued_at"] = strconv.FormatInt(time.Now().Add(-3*time.Hour).UnixMilli(), 10)
	if err := integration.Salesforce.Probe(t.Context(), c2); err != nil || tokenCalls.Load() != 2 {
		t.Fatalf("renewal ahead of expiry: %v, %d token calls", err, tokenCalls.Load())
	}
	// A refused refresh token: one token call, a rejection naming invalid_grant, no loop.
	before := tokenCalls.Load()
	err = integration.Salesforce.Probe(t.Context(), salesforceConn(t, srv, with("access_token", "expired-3", "refresh_token", "invalid-rt"), &saves, nil))
	if !errors.Is(err, integration.ErrRejected) || !strings.Contains(err.Error(), "invalid_grant") || tokenCalls.Load() != before+1 {
		t.Fatalf("refused refresh: %v, %d token calls", err, tokenCalls.Load()-before)
	}
	// A rate-limited org: Salesforce's 403 REQUEST_LIMIT_EXCEEDED, named.
	err = integration.Salesforce.Probe(t.Context(), salesforceConn(t, srv, with("access_token", "ratelimited-1"), &saves, nil))
	if err == nil || !strings.Contains(err.Error(), "REQUEST_LIMIT_EXCEEDED") {
		t.Fatalf("rate limited: %v", err)
	}
}

func TestSalesforceTokenURL(t *testing.T) {
	// Live (no override): the token is renewed at login_url, the API called at the instance.
	var paths []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.Host+r.URL.Path)
		if strings.HasPrefix(r.URL.Path, "/services/data/") {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`[{"message":"Session expired or invalid","errorCode":"INVALID_SESSION_ID"}]`))
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"invalid_grant","error_description":"expired access/refresh token"}`))
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	client := srv.Client()
	client.Transport.(*http.Transport).DialContext = nil
	k := &integration.Connector{HTTP: &http.Client{Transport: rewriteHost{u.Host, client.Transport}}}
	c := k.Conn(integration.Salesforce, integration.Credentials{"instance_url": "https://acme.my.salesforce.com", "access_token": "expired",
		"refresh_token": "rt", "login_url": "https://test.salesforce.com"}, "")
	err := integration.Salesforce.Probe(t.Context(), c)
	if !errors.Is(err, integration.ErrRejected) || len(paths) != 2 || paths[0] != "acme.my.salesforce.com/services/data/v60.0/sobjects" ||
		paths[1] != "test.salesforce.com/services/oauth2/token" {
		t.Fatalf("err %v, requests %v", err, paths)
	}
}

// rewriteHost sends every request to one test server, keeping its Host.
type rewriteHost struct {
	addr string
	rt   http.RoundTripper
}

func (r rewriteHost) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Host = req.URL.Host
	req.URL.Host = r.addr
	return r.rt.RoundTrip(req)
}

func TestSalesforceLookupsAgainstSandbox(t *testing.T) {
	srv := httptest.NewServer(sandbox.New(sandbox.Config{Seed: 1}).Handler())
	defer srv.Close()
	var saves []integration.Credentials
	c := salesforceConn(t, srv, integration.Credentials{"instance_url": "https://acme.my.salesforce.com", "access_token": "00Dlookups"}, &saves, nil)
	out, err := integration.Salesforce.Lookups["crm-fields"](t.Context(), c, url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(jsonString(t, out), " ", "")
	for _, want := range []string{`"contacts":[`, `"companies":[`, `"slug":"LinkedIn_URL__c"`, `"slug":"LeadSource","label":"LeadSource","type":"picklist","options":[{"label":"Web","value":"Web"`, `"slug":"NumberOfEmployees"`} {
		if !strings.Contains(s, want) {
			t.Fatalf("crm-fields lacks %s: %s", want, s)
		}
	}
	opts, err := integration.Salesforce.Lookups["crm-field-options"](t.Context(), c, url.Values{"object_type": {"contacts"}, "field_slug": {"Status"}})
	if err != nil || !strings.Contains(jsonString(t, opts), `"value":"Open - Not Contacted"`) {
		t.Fatalf("options = %s, %v", jsonString(t, opts), err)
	}
	for _, p := range []url.Values{
		{"object_type": {"deals"}, "field_slug": {"Status"}},
		{"object_type": {"contacts"}, "field_slug": {"Nope__c"}},
		{"object_type": {"contacts"}, "field_slug": {"Email"}},
	} {
		var pe *integration.ParamError
		if _, err := integration.Salesforce.Lookups["crm-field-options"](t.Context(), c, p); !errors.As(err, &pe) {
			t.Fatalf("%v: %v, want a ParamError", p, err)
		}
	}
}

func FuzzSalesforceErrorMessage(f *testing.F) {
	for _, s := range []string{`[{"message":"Session expired or invalid","errorCode":"INVALID_SESSION_ID"}]`,
		`[{"message":"Required fields are missing: [LastName]","errorCode":"REQUIRED_FIELD_MISSING","fields":["LastName"]}]`,
		`{"error":"invalid_grant"}`, `[]`, `null`, `[{}]`, `"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_ = integration.ParseSalesforceErrors(body)
		msg := integration.Salesforce.ErrorMessage(body)
		if strings.HasPrefix(msg, ": ") {
			t.Fatalf("message %q", msg)
		}
	})
}
