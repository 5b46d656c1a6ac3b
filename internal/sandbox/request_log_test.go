package sandbox

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// Every protocol logs what a client asked for at debug level, which is how the end-to-end tests
// count and check upstream calls; a token never appears.
func TestRequestLog(t *testing.T) {
	var buf bytes.Buffer
	s := New(Config{Seed: 1, Now: newTest(t, 1, testNow).now, Logger: slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	h := s.Handler()
	getJSON(t, h, "/pronet/profile/posts?username=jane-doe", 200)
	hvGet(t, h, "profile-posts?profilePublicIdentifier=jane-doe&page=2", 200)
	syncItems(t, h, "harvestapi~linkedin-profile-posts", `{"targetUrls":["https://www.linkedin.com/in/jane-doe/"],"maxPosts":1}`, 201)
	apifyDo(t, h, http.MethodGet, "/v2/users/me?token=secret-token", "", "")

	type line struct{ Msg, Method, Path, Query, Actor, Input string }
	var got []line
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var v line
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if v.Msg != "sandbox request" { // the server's own line for every request, without its query
			got = append(got, v)
		}
	}
	want := []line{
		{Msg: "sandbox pronet request", Path: "/profile/posts", Query: "username=jane-doe"},
		{Msg: "sandbox harvestapi request", Path: "/linkedin/profile-posts", Query: "profilePublicIdentifier=jane-doe&page=2"},
		{Msg: "sandbox apify request", Method: "POST", Path: "/v2/acts/harvestapi~linkedin-profile-posts/run-sync-get-dataset-items"},
		{Msg: "sandbox apify run", Actor: "harvestapi~linkedin-profile-posts", Input: `{"targetUrls":["https://www.linkedin.com/in/jane-doe/"],"maxPosts":1}`},
		{Msg: "sandbox apify request", Method: "GET", Path: "/v2/users/me"},
	}
	if len(got) != len(want) {
		t.Fatalf("log lines %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("log line %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if strings.Contains(buf.String(), "secret-token") {
		t.Fatal("a token was logged")
	}
}
