package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/secret"
	"github.com/trawlhq/trawl/internal/store"
)

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
	d.WebhookSecret = base64.StdEncoding.EncodeToString(s.secrets.Seal([]byte(plain), secret.SearchWebhookContext(sr.AccountID)))
	return &plain
}

// searchDelivery is a webhook delivery as the API shows it.
type searchDelivery struct {
	ID             string  `json:"id" doc:"The webhook-id every attempt of this delivery carries."`
	Status         string  `json:"status" enum:"pending,delivered,failed"`
	Attempts       int     `json:"attempts"`
	ResultsCount   int     `json:"results_count" doc:"Results in the batch (at most 100)."`
	CreatedAt      string  `json:"created_at"`
	LastAttemptAt  *string `json:"last_attempt_at"`
	NextAttemptAt  *string `json:"next_attempt_at" doc:"When a pending delivery is tried next; null otherwise."`
	LastStatusCode *int    `json:"last_status_code" doc:"The receiver's last HTTP status; null when it did not answer."`
	LastError      *string `json:"last_error"`
}

type listDeliveriesInput struct {
	ID       string `path:"id" doc:"Search id."`
	Limit    int    `query:"limit" minimum:"1" maximum:"100" default:"20" doc:"Deliveries per page, 1-100."`
	PageSize int    `query:"page_size" minimum:"1" maximum:"100" doc:"Alias of limit (give one of them)."`
	Cursor   string `query:"cursor" doc:"next_cursor of the previous page."`
}

// Resolve implements huma.Resolver: page_size, the alias of limit.
func (in *listDeliveriesInput) Resolve(ctx huma.Context) []error {
	var p problems
	cursorPageSize(queryOf(ctx), &in.Limit, in.PageSize, 100, &p)
	return p.errs()
}

type listDeliveriesReply struct {
	Body struct {
		Message    string           `json:"message"`
		Success    bool             `json:"success"`
		Data       []searchDelivery `json:"data"`
		Pagination pagination       `json:"pagination"`
	}
}

func (s *Server) handleListDeliveries(ctx context.Context, in *listDeliveriesInput) (*listDeliveriesReply, error) {
	sr, err := s.accountSearch(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	page, err := s.store.ListDeliveries(ctx, sr.ID, in.Limit, in.Cursor)
	if errors.Is(err, store.ErrBadCursor) {
		return nil, badCursor()
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	out := &listDeliveriesReply{}
	out.Body.Message, out.Body.Success = "Deliveries", true
	out.Body.Data = make([]searchDelivery, 0, len(page.Deliveries))
	for _, d := range page.Deliveries {
		sd := searchDelivery{ID: d.ID, Status: d.Status, Attempts: d.Attempts, ResultsCount: d.ResultsCount,
			CreatedAt: formatTime(d.CreatedAt), LastAttemptAt: optTime(d.LastAttemptAt), NextAttemptAt: optTime(d.NextAttemptAt),
			LastStatusCode: d.LastStatusCode}
		if d.LastError != "" {
			sd.LastError = &d.LastError
		}
		out.Body.Data = append(out.Body.Data, sd)
	}
	out.Body.Pagination = newPagination(page.NextCursor, nil)
	return out, nil
}
