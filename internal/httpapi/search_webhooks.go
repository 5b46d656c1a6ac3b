package httpapi

import (
	"crypto/rand"
	"encoding/base64"

	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/secret"
)

// SearchWebhookContext is the sealing context of the signing secrets of an
// account's saved-search webhooks.
func SearchWebhookContext(accountID string) string {
	return secret.AccountContext(accountID, "search-webhook")
}

// ensureSearchWebhookSecret gives a search with a webhook_url its signing
// secret when it has none, and returns it (once) for the answer. A search
// without a webhook_url keeps none.
func (s *Server) ensureSearchWebhookSecret(sr *search.Search) *string {
	d := &sr.Definition
	if d.WebhookURL == "" {
		d.WebhookSecret = ""
		return nil
	}
	if d.WebhookSecret != "" {
		return nil
	}
	raw := make([]byte, 32)
	_, _ = rand.Read(raw)
	plain := "whsec_" + base64.StdEncoding.EncodeToString(raw)
	d.WebhookSecret = base64.StdEncoding.EncodeToString(s.secrets.Seal([]byte(plain), SearchWebhookContext(sr.AccountID)))
	return &plain
}
