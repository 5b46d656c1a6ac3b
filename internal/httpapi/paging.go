package httpapi

import (
	"net/url"

	"github.com/danielgtaylor/huma/v2"
)

// Paging. The API pages its lists three ways, as the hosted API does: by
// page number (page, page_size), by offset (limit, offset) and by cursor
// (cursor, limit). Each list answers in its own way and also takes the
// other ways' names where they mean the same thing, so that a client that
// learnt one list is not refused by the next: limit and page_size are one
// parameter everywhere, and page and offset are one parameter on the lists
// paged by number or offset. Giving both names of one parameter is a 400
// naming both. A cursor list takes no page or offset (a keyset has no row
// numbers), and a list paged by number takes no cursor unless it keeps one
// (a topic's engagers).

// maxPage is the deepest page of any list: (page-1)×page_size then stays
// under 10⁹, inside every integer a store computes it in.
const maxPage = 10_000_000

// PageQuery is the paging of a list paged by number; every such input
// embeds it (huma reads the parameters of embedded exported structs).
// limit and offset are its aliases: an offset must fall on a page, since
// the answer says which page it is. A deeper page is a 400 naming the
// parameter given, while a page past the last one within the bound is an
// empty page with the total.
type PageQuery struct {
	Page     int `query:"page" minimum:"1" maximum:"10000000" default:"1" doc:"Page number, from 1 (at most 10,000,000)."`
	PageSize int `query:"page_size" minimum:"1" maximum:"100" default:"10" doc:"Items per page, 1-100."`
	Limit    int `query:"limit" minimum:"1" maximum:"100" doc:"Alias of page_size (give one of them)."`
	Offset   int `query:"offset" minimum:"0" maximum:"999999900" doc:"Alias of page (give one of them): items to skip, a multiple of the page size (offset=20&limit=10 is page 3)."`
}

// Resolve implements huma.Resolver: the aliases, turned into page and
// page_size.
func (q *PageQuery) Resolve(ctx huma.Context) []error {
	var p problems
	q.resolve(queryOf(ctx), &p)
	return p.errs()
}

func (q *PageQuery) resolve(raw url.Values, p *problems) {
	if aliasGiven(raw, "page_size", "limit", p) && q.Limit >= 1 && q.Limit <= 100 {
		q.PageSize = q.Limit
	}
	if !aliasGiven(raw, "page", "offset", p) || q.PageSize < 1 || q.Offset < 0 {
		return // a bad page_size or offset is the schema's to report
	}
	switch {
	case q.Offset%q.PageSize != 0:
		p.add("query.offset", "must be a multiple of the page size (%d) on this list, which pages by number: offset %d falls inside page %d",
			q.PageSize, q.Offset, q.Offset/q.PageSize+1)
	case q.Offset/q.PageSize+1 > maxPage:
		p.add("query.offset", "reaches past page %d, the deepest of any list", maxPage)
	default:
		q.Page = q.Offset/q.PageSize + 1
	}
}

// aliasGiven reports whether the request named a parameter by its alias;
// both names at once is a problem named at each.
func aliasGiven(raw url.Values, name, alias string, p *problems) bool {
	if raw.Has(name) && raw.Has(alias) {
		p.add("query."+name, "and %s are one parameter on this list: give one of them", alias)
		p.add("query."+alias, "and %s are one parameter on this list: give one of them", name)
		return false
	}
	return raw.Has(alias)
}

// cursorPageSize applies page_size, the alias of limit on a list paged by
// cursor, within the same bounds as limit.
func cursorPageSize(raw url.Values, limit *int, pageSize, most int, p *problems) {
	if aliasGiven(raw, "limit", "page_size", p) && pageSize >= 1 && pageSize <= most {
		*limit = pageSize
	}
}

// noCursorWithPage refuses a page or offset beside a cursor: the cursor
// says where the page starts.
func noCursorWithPage(raw url.Values, p *problems) {
	if !raw.Has("cursor") {
		return
	}
	for _, name := range []string{"page", "offset"} {
		if raw.Has(name) {
			p.add("query."+name, "cannot be given with cursor, which says where the page starts")
			p.add("query.cursor", "cannot be given with %s: pass one of them", name)
		}
	}
}

// errs turns the problems into a resolver's errors.
func (p problems) errs() []error {
	out := make([]error, len(p))
	for i, d := range p {
		out[i] = detailError(d)
	}
	return out
}

// pagingHint tells a request that named a paging parameter a list does not
// take how that list pages instead.
func pagingHint(operationID, param string) string {
	switch param {
	case "page", "offset", "cursor", "limit", "page_size":
	default:
		return ""
	}
	switch operationID {
	case "list-searches", "list-search-results":
		return "; this list pages by cursor: pass pagination.next_cursor of one page as cursor to get the next"
	case "list-topics", "list-topic-posts", "list-topic-post-engagements", "list-workflow-executions":
		return "; this list pages by number: page and page_size (or offset and limit)"
	case "list-workflows":
		return "; this list pages by offset: offset and limit (or page and page_size)"
	}
	return ""
}

// queryOf is the request's query parameters.
func queryOf(ctx huma.Context) url.Values {
	u := ctx.URL()
	return u.Query()
}
