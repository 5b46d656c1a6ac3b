package httpapi

import (
	"context"
	"errors"
	"time"

	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/store"
)

type resultsInput struct {
	ID     string `path:"id" doc:"Search id."`
	Limit  int    `query:"limit" minimum:"1" maximum:"500" default:"50"`
	Cursor string `query:"cursor" doc:"next_cursor of the previous page."`
	From   string `query:"from" doc:"Only results published at or after this ISO 8601 time."`
}

type resultsReply struct {
	Body struct {
		Message    string        `json:"message"`
		Success    bool          `json:"success"`
		Data       []source.Item `json:"data"`
		Pagination pagination    `json:"pagination"`
	}
}

func (s *Server) handleSearchResults(ctx context.Context, in *resultsInput) (*resultsReply, error) {
	var from time.Time
	if in.From != "" {
		t, err := parseTimestamp(in.From)
		if err != nil {
			return nil, validationError(Detail{Field: "query.from", Message: err.Error()})
		}
		from = t
	}
	sr, err := s.accountSearch(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	page, err := s.store.Results(ctx, sr, in.Limit, in.Cursor, from)
	if errors.Is(err, store.ErrBadCursor) {
		return nil, badCursor()
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	out := &resultsReply{}
	out.Body.Message, out.Body.Success = "Results", true
	out.Body.Data = page.Items
	if out.Body.Data == nil {
		out.Body.Data = []source.Item{}
	}
	out.Body.Pagination = newPagination(page.NextCursor, &page.TotalCount)
	return out, nil
}
