package jobs

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/trawlhq/trawl/internal/clock"
)

// TestHeartbeatKicksOnlyWhenItTookWorkOver: the heartbeat beats at start
// and on every tick with the injected clock's time, and kicks the scans
// after a beat that handed work back, not after the others (a failed beat
// included).
func TestHeartbeatKicksOnlyWhenItTookWorkOver(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC))
	handed := []int64{0, 2, 0, -1, 1} // -1: the beat fails
	beats := make(chan time.Time)
	var kicks int
	ticks := make(chan time.Time)
	h := &Heartbeat{
		Now: clk.Now, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Ticks: ticks,
		Beat: func(_ context.Context, now time.Time) (int64, error) {
			n := handed[0]
			handed = handed[1:]
			beats <- now
			if n < 0 {
				return 0, errors.New("database away")
			}
			return n, nil
		},
		Kick: func(context.Context) error { kicks++; return nil },
	}
	h.Start(context.Background())
	want := clk.Now()
	for i := range 5 {
		if i > 0 {
			clk.Advance(5 * time.Second)
			want = clk.Now()
			ticks <- want
		}
		if got := <-beats; !got.Equal(want) {
			t.Fatalf("beat %d at %s, want the clock's %s", i, got, want)
		}
	}
	h.Stop()
	if kicks != 2 {
		t.Fatalf("%d kicks, want 2 (after the beats that handed work back)", kicks)
	}
}
