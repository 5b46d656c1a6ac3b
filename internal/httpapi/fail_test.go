package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/source/pronet"
)

// TestFailProviderUnsupported: a capability the pronet provider lacks is a 422 naming the
// provider and what it cannot do, never a 500 or an empty answer.
func TestFailProviderUnsupported(t *testing.T) {
	s := &Server{log: slog.New(slog.DiscardHandler), now: time.Now}
	err := s.fail(context.Background(), fmt.Errorf("search run: %w", pronet.Unsupported("apify", "searching by mentioned members")))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("fail = %T %v, want an API error", err, err)
	}
	if e.GetStatus() != http.StatusUnprocessableEntity || e.Info.Code != CodeProviderUnsupported ||
		!strings.Contains(e.Message, "apify") || !strings.Contains(e.Message, "searching by mentioned members") {
		t.Fatalf("fail = %d %s %q", e.GetStatus(), e.Info.Code, e.Message)
	}
	if !errors.Is(pronet.Unsupported("apify", "x"), pronet.ErrUnsupported) {
		t.Fatal("an UnsupportedError is not ErrUnsupported")
	}
}
