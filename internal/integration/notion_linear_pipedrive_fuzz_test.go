package integration_test

import (
	"testing"
	"unicode/utf8"

	"github.com/trawlhq/trawl/internal/integration"
)

// The error-body parsers read whatever a service (or something in its
// place) answers: they never panic, and say nothing when the body is not
// the service's error shape.
func FuzzNotionErrorMessage(f *testing.F) {
	f.Add([]byte(`{"object":"error","status":401,"code":"unauthorized","message":"API token is invalid."}`))
	f.Add([]byte(`{"code":"rate_limited"}`))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, body []byte) { checkMessage(t, body, integration.NotionErrorMessage(body)) })
}

func FuzzLinearErrorMessage(f *testing.F) {
	f.Add([]byte(`{"errors":[{"message":"Authentication required","extensions":{"type":"authentication error","code":"AUTHENTICATION_ERROR"}}]}`))
	f.Add([]byte(`{"errors":[]}`))
	f.Add([]byte(`{"errors":[{"extensions":null}]}`))
	f.Fuzz(func(t *testing.T, body []byte) { checkMessage(t, body, integration.LinearErrorMessage(body)) })
}

func FuzzPipedriveErrorMessage(f *testing.F) {
	f.Add([]byte(`{"success":false,"error":"unauthorized access","errorCode":401,"error_info":"Please check developers.pipedrive.com"}`))
	f.Add([]byte(`{"error":5}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, body []byte) { checkMessage(t, body, integration.PipedriveErrorMessage(body)) })
}

func checkMessage(t *testing.T, body []byte, msg string) {
	if !utf8.ValidString(msg) {
		t.Fatalf("message %q of %q is not UTF-8", msg, body)
	}
	if len(msg) > 2*len(body)+8 {
		t.Fatalf("message %q is longer than the body %q allows", msg, body)
	}
}
