package httpapi

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/search"
	"github.com/trawlhq/trawl/internal/source"
	"github.com/trawlhq/trawl/internal/store"
)

type resultsInput struct {
	ID       string `path:"id" doc:"Search id."`
	Limit    int    `query:"limit" minimum:"1" maximum:"500" default:"50" doc:"Results per page, 1-500."`
	PageSize int    `query:"page_size" minimum:"1" maximum:"500" doc:"Alias of limit (give one of them)."`
	Cursor   string `query:"cursor" doc:"next_cursor of the previous page."`
	From     string `query:"from" doc:"Only results published at or after this ISO 8601 time."`
	AuthorQuery

	from time.Time
}

// Resolve implements huma.Resolver: page_size (the alias of limit), from,
// and the author filters and format.
func (in *resultsInput) Resolve(ctx huma.Context) []error {
	var p problems
	cursorPageSize(queryOf(ctx), &in.Limit, in.PageSize, 500, &p)
	errs := append(p.errs(), in.AuthorQuery.Resolve(ctx)...)
	if in.From != "" {
		t, err := parseTimestamp(in.From)
		if err != nil {
			errs = append(errs, &huma.ErrorDetail{Location: "query.from", Message: err.Error()})
		}
		in.from = t
	}
	return errs
}

// resultsBody is the JSON answer of the results list.
type resultsBody struct {
	Message    string        `json:"message"`
	Success    bool          `json:"success"`
	Data       []source.Item `json:"data"`
	Pagination pagination    `json:"pagination"`
	Meta       resultsMeta   `json:"meta"`
}

// resultsMeta names what the page is of (the hosted API's meta): the
// search and the from the query gave, as given.
type resultsMeta struct {
	SearchID string  `json:"search_id"`
	From     *string `json:"from" doc:"The from query, as given; null when absent."`
}

func (s *Server) handleSearchResults(ctx context.Context, in *resultsInput) (*huma.StreamResponse, error) {
	sr, err := s.accountSearch(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	q := store.ResultQuery{From: in.from, Author: in.filter}
	if in.csv {
		return s.resultsCSV(ctx, sr, q)
	}
	page, err := s.store.FilteredResults(ctx, sr, q, in.Limit, in.Cursor)
	if errors.Is(err, store.ErrBadCursor) {
		return nil, badCursor()
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	body := resultsBody{Message: "Results", Success: true, Data: page.Items,
		Pagination: newPagination(page.NextCursor, &page.TotalCount), Meta: resultsMeta{SearchID: sr.ID}}
	if in.From != "" {
		body.Meta.From = &in.From
	}
	if body.Data == nil {
		body.Data = []source.Item{}
	}
	return s.jsonAnswer(body), nil
}

// resultsCSVHeader names the columns of a results export: the JSON item's
// fields, flattened, then what the author filters read of the author.
var resultsCSVHeader = []string{"id", "source", "published_at", "collected_at", "url", "text",
	"author_name", "author_username", "author_profile_url", "author_avatar", "author_followers",
	"author_description", "author_location", "author_job_title", "author_company", "author_industry", "author_country",
	"likes", "comments", "shares", "media"}

func (s *Server) resultsCSV(ctx context.Context, sr search.Search, q store.ResultQuery) (*huma.StreamResponse, error) {
	exp := s.store.ExportResults(sr, q, csvBatch)
	return s.csvAnswer(ctx, "search-"+sr.ID+"-results.csv", resultsCSVHeader, func(ctx context.Context) ([][]string, error) {
		rows, err := exp.Next(ctx)
		if err != nil {
			return nil, err
		}
		out := make([][]string, len(rows))
		for i, r := range rows {
			out[i] = resultRecord(r)
		}
		return out, nil
	})
}

// resultRecord is a result as a CSV record: timestamps as the JSON has
// them, unknown counts empty, media URLs separated by spaces. The author
// columns are the collected profile of a pronet author (empty when none)
// and, for a microblog author, the country their location names.
func resultRecord(r store.ResultRow) []string {
	it := r.Item
	var media []string
	for _, m := range it.Content.Media {
		media = append(media, m.URL)
	}
	var title, company, industry, country string
	if p := r.Author; p != nil {
		title, company, industry, country = cmpOr(p.JobTitle, p.Headline), p.Company, p.Industry, p.Country
	} else if it.Source != "pronet" {
		country = store.LocationCountry(it.Author.Location)
	}
	return []string{it.ID, it.Source, csvTime(it.PublishedAt), csvTime(it.CollectedAt), it.Content.URL, it.Content.Text,
		it.Author.Name, it.Author.Username, it.Author.ProfileURL, it.Author.Avatar, csvInt(it.Author.Followers),
		it.Author.Description, it.Author.Location, title, company, industry, country,
		strconv.Itoa(it.Engagement.Likes), strconv.Itoa(it.Engagement.Comments), csvInt(it.Engagement.Shares),
		strings.Join(media, " ")}
}

func csvTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(source.TimeLayout)
}

func csvInt[T int | int64](n *T) string {
	if n == nil {
		return ""
	}
	return strconv.FormatInt(int64(*n), 10)
}
