package apify

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/trawlhq/trawl/internal/source"
)

// itemHead is what the adapter reads of any dataset item before translating it: its id, the
// `type` some actors set (post, comment, reaction, REPLY) and the `error` the profile actor
// keeps beside a billed answer that failed.
type itemHead struct {
	ID    json.RawMessage `json:"id"`
	Type  string          `json:"type"`
	Error json.RawMessage `json:"error"`
}

// itemError is the failure an item reports instead of data.
type itemError struct {
	msg      string
	notFound bool
}

// headOf reads an item's head; ok is false for a value that is not an object (a malformed
// item, skipped).
func headOf(raw json.RawMessage) (itemHead, bool) {
	var h itemHead
	if err := json.Unmarshal(raw, &h); err != nil {
		return itemHead{}, false
	}
	return h, true
}

// failure reports the error of an item that carries one and no id.
func (h itemHead) failure() (itemError, bool) {
	e := strings.TrimSpace(string(h.Error))
	if e == "" || e == "null" || e == "false" || e == `""` || e == "{}" {
		return itemError{}, false
	}
	if id := strings.TrimSpace(string(h.ID)); id != "" && id != "null" && id != `""` {
		return itemError{}, false
	}
	var msg string
	var status int
	var obj struct {
		Message string `json:"message"`
		Error   string `json:"error"`
		Status  int    `json:"status"`
	}
	if json.Unmarshal(h.Error, &msg) != nil {
		if json.Unmarshal(h.Error, &obj) == nil {
			msg, status = obj.Message, obj.Status
			if msg == "" {
				msg = obj.Error
			}
		}
	}
	if msg == "" {
		msg = e
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
	}
	lower := strings.ToLower(msg)
	return itemError{msg: msg, notFound: status == http.StatusNotFound ||
		strings.Contains(lower, "not found") || strings.Contains(lower, "not exist")}, true
}

func (e itemError) err() error {
	if e.notFound {
		return fmt.Errorf("%s: %s: %w", Name, e.msg, source.ErrNotFound)
	}
	return &source.UpstreamError{Source: Name, Status: http.StatusOK, Err: errors.New(e.msg)}
}

// eachItem calls fn with every well-formed item that is not an error report. A dataset with
// error reports and nothing else is that error (not found when one says so).
func eachItem(items []json.RawMessage, fn func(raw json.RawMessage, kind string) error) error {
	var first *itemError
	good := 0
	for _, raw := range items {
		h, ok := headOf(raw)
		if !ok {
			continue
		}
		if e, failed := h.failure(); failed {
			if first == nil {
				first = &e
			}
			continue
		}
		good++
		if err := fn(raw, h.Type); err != nil {
			return err
		}
	}
	if good == 0 && first != nil {
		return first.err()
	}
	return nil
}

// lookupItem is the one item a lookup run pushed: none is source.ErrNotFound, an error report
// is its error. The first item is the answer even when it does not decode (a malformed single
// object is a failure, not a miss). With kinds, items of another `type` are passed over.
func lookupItem(items []json.RawMessage, kinds ...string) (json.RawMessage, error) {
	if len(items) == 0 {
		return nil, fmt.Errorf("%s: the actor pushed nothing: %w", Name, source.ErrNotFound)
	}
	for _, raw := range items {
		h, ok := headOf(raw)
		if !ok {
			return nil, source.DecodeError(Name, http.StatusOK, errors.New("item is not an object"))
		}
		if e, failed := h.failure(); failed {
			return nil, e.err()
		}
		if h.Type == "" || len(kinds) == 0 || slices.ContainsFunc(kinds, func(k string) bool { return strings.EqualFold(k, h.Type) }) {
			return raw, nil
		}
	}
	return nil, fmt.Errorf("%s: the actor pushed no answer: %w", Name, source.ErrNotFound)
}
