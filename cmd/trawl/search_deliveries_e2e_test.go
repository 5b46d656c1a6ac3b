package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/trawlhq/trawl/internal/store"
)

// webhookSearch is what a search's answers say of its webhook.
type webhookSearch struct {
	ID            string  `json:"id"`
	WebhookURL    *string `json:"webhook_url"`
	WebhookSecret *string `json:"webhook_secret"`
}

func TestSearchWebhookURLAccepted(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine store.Dialect) {
		ts := startServer(t, serverEnv(t, engine, nil))
		c := ts.Client
		creates := []struct {
			path string
			body map[string]any
		}{
			{"/v1/searches/microblog/posts", map[string]any{"name": "w", "keywords": []string{"CRM"}}},
			{"/v1/searches/microblog/profile", map[string]any{"name": "w", "profile_url": "https://x.com/jack"}},
			{"/v1/searches/pronet/posts", map[string]any{"name": "w", "keywords": []string{"CRM"}}},
			{"/v1/searches/pronet/profile", map[string]any{"name": "w", "profile_url": "https://www.linkedin.com/in/jane-doe"}},
		}
		for _, cr := range creates {
			cr.body["webhook_url"] = "ftp://example.com/hook"
			e := mustDo(t, c, http.MethodPost, cr.path, cr.body, 400).Err()
			if len(e.Details) != 1 || e.Details[0].Field != "body.webhook_url" {
				t.Fatalf("%s with an ftp webhook_url: %+v", cr.path, e)
			}
			cr.body["webhook_url"] = "https://example.com/hook"
			var s webhookSearch
			if err := mustDo(t, c, http.MethodPost, cr.path, cr.body, 201).Data(&s); err != nil {
				t.Fatal(err)
			}
			if s.WebhookURL == nil || *s.WebhookURL != "https://example.com/hook" || s.WebhookSecret == nil || !strings.HasPrefix(*s.WebhookSecret, "whsec_") {
				t.Fatalf("%s created %+v", cr.path, s)
			}
			var got webhookSearch
			if err := mustDo(t, c, http.MethodGet, "/v1/searches/"+s.ID, nil, 200).Data(&got); err != nil {
				t.Fatal(err)
			}
			if got.WebhookURL == nil || *got.WebhookURL != "https://example.com/hook" || got.WebhookSecret != nil {
				t.Fatalf("GET %s = %+v, want the URL and no secret", cr.path, got)
			}
		}

		s := createSearch(t, c, map[string]any{"name": "plain", "keywords": []string{"CRM"}})
		var p webhookSearch
		e := mustDo(t, c, http.MethodPatch, "/v1/searches/"+s.ID, map[string]any{"webhook_url": "not a url"}, 400).Err()
		if len(e.Details) != 1 || e.Details[0].Field != "body.webhook_url" {
			t.Fatalf("PATCH with a bad webhook_url: %+v", e)
		}
		if err := mustDo(t, c, http.MethodPatch, "/v1/searches/"+s.ID, map[string]any{"webhook_url": "http://example.com/h"}, 200).Data(&p); err != nil {
			t.Fatal(err)
		}
		if p.WebhookURL == nil || p.WebhookSecret == nil {
			t.Fatalf("PATCH set: %+v", p)
		}
		p = webhookSearch{}
		if err := mustDo(t, c, http.MethodPatch, "/v1/searches/"+s.ID, map[string]any{"webhook_url": ""}, 200).Data(&p); err != nil {
			t.Fatal(err)
		}
		if p.WebhookURL != nil || p.WebhookSecret != nil {
			t.Fatalf("PATCH clear: %+v", p)
		}
	})
}
