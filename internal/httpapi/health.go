package httpapi

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/source/pronet"
)

type healthData struct {
	Status string `json:"status" example:"ok"`
}

func (s *Server) handleHealthz(ctx context.Context, _ *struct{}) (*Reply[healthData], error) {
	return reply("alive", healthData{Status: "ok"}), nil
}

// readyzDescription is the route's description in the OpenAPI document.
const readyzDescription = "Answers 200 when the database answers and the pronet provider's key was accepted at its " +
	"last check, 503 UNAVAILABLE otherwise, with a message naming what failed and why (for the provider, its " +
	"name and the vendor's answer, never the key). The provider is asked again at most once a minute, so a " +
	"fixed key is ready without a restart."

func (s *Server) handleReadyz(ctx context.Context, _ *struct{}) (*Reply[healthData], error) {
	dbCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := s.store.Ping(dbCtx); err != nil {
		s.log.Warn("readiness check failed", "error", err)
		return nil, NewAPIError(http.StatusServiceUnavailable, CodeUnavailable, "The database does not answer.")
	}
	if s.pronetReady != nil {
		pnCtx, cancel := context.WithTimeout(ctx, pronet.ReadyTimeout)
		defer cancel()
		// Logged at start and when the answer changes, not at every probe.
		var ce *pronet.CheckError
		if err := s.pronetReady.Ready(pnCtx); errors.As(err, &ce) {
			return nil, NewAPIError(http.StatusServiceUnavailable, CodeUnavailable, ce.Error()+".")
		}
	}
	return reply("ready", healthData{Status: "ok"}), nil
}

// described sets an operation's description.
func described(desc string) func(*huma.Operation) {
	return func(op *huma.Operation) { op.Description = desc }
}
