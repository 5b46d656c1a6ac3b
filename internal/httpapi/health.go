package httpapi

import (
	"context"
	"net/http"
	"time"
)

type healthData struct {
	Status string `json:"status" example:"ok"`
}

func (s *Server) handleHealthz(ctx context.Context, _ *struct{}) (*Reply[healthData], error) {
	return reply("alive", healthData{Status: "ok"}), nil
}

func (s *Server) handleReadyz(ctx context.Context, _ *struct{}) (*Reply[healthData], error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		s.log.Warn("readiness check failed", "error", err)
		return nil, NewAPIError(http.StatusServiceUnavailable, CodeUnavailable, "The database does not answer.")
	}
	return reply("ready", healthData{Status: "ok"}), nil
}
