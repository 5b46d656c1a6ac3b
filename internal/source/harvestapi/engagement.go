package harvestapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"

	"github.com/trawlhq/trawl/internal/source/pronet"
)

// The vendor's page sizes, when its pagination does not say.
const (
	commentsPageSize  = 10
	reactionsPageSize = 10
)

// Comments implements pronet.Provider with GET /linkedin/post-comments?post=<id>&page=P. With
// limit 0 Trawl's page is the vendor's page; otherwise the vendor pages that hold Trawl's
// window are read and cut.
func (c *Client) Comments(ctx context.Context, postURN string, page, limit int) (pronet.CommentsPage, error) {
	if postURN == "" {
		return pronet.CommentsPage{}, fmt.Errorf("harvestapi: comments: empty post urn")
	}
	raw, total, totalPage, err := c.engagementPage(ctx, "/linkedin/post-comments", pronet.OpComments, postURN, page, limit, commentsPageSize)
	if err != nil {
		return pronet.CommentsPage{}, fmt.Errorf("harvestapi: post %s comments: %w", postURN, err)
	}
	out := pronet.CommentsPage{Comments: pronet.List[pronet.Comment]{}, Total: total, TotalPage: totalPage, CurrentPage: max(page, 1)}
	for _, it := range raw {
		cm, err := commentFromItem(it, postURN, true)
		if err != nil {
			continue
		}
		out.Comments = append(out.Comments, cm)
	}
	return out, nil
}

// Reactions implements pronet.Provider with GET /linkedin/post-reactions?post=<id>&page=P,
// paged as Comments.
func (c *Client) Reactions(ctx context.Context, postURN string, page, limit int) (pronet.ReactionsPage, error) {
	if postURN == "" {
		return pronet.ReactionsPage{}, fmt.Errorf("harvestapi: reactions: empty post urn")
	}
	raw, total, totalPage, err := c.engagementPage(ctx, "/linkedin/post-reactions", pronet.OpReactions, postURN, page, limit, reactionsPageSize)
	if err != nil {
		return pronet.ReactionsPage{}, fmt.Errorf("harvestapi: post %s reactions: %w", postURN, err)
	}
	out := pronet.ReactionsPage{Items: []pronet.Reactor{}, Total: total, TotalPage: totalPage, CurrentPage: max(page, 1)}
	for _, it := range raw {
		r, err := ReactorFromItem(it)
		if err != nil {
			continue
		}
		out.Items = append(out.Items, r)
	}
	return out, nil
}

// engagementPage reads Trawl's page (from 1) of limit items of a post's comments or reactions.
func (c *Client) engagementPage(ctx context.Context, path, op, postURN string, page, limit, size int) (raw []json.RawMessage, total, totalPage int, err error) {
	page = max(page, 1)
	fetch := func(ctx context.Context, n int, token string) ([]json.RawMessage, *pagination, error) {
		q := url.Values{"post": {postURN}, "page": {strconv.Itoa(n)}}
		if token != "" {
			q.Set("paginationToken", token)
		}
		env, err := c.get(ctx, path, q)
		if err != nil {
			return nil, nil, err
		}
		items := env.Elements
		c.bill(ctx, op, len(items))
		return items, env.Pagination, nil
	}
	if limit <= 0 {
		items, pag, err := fetch(ctx, page, "")
		if err != nil {
			return nil, 0, 0, err
		}
		total = vendorTotal(pag)
		if pag != nil {
			totalPage = int(pag.TotalPages)
		}
		if total == 0 && len(items) > 0 {
			total = (page-1)*size + len(items)
		}
		if totalPage == 0 && total > 0 {
			vs := size
			if pag != nil && pag.PageSize > 0 {
				vs = int(pag.PageSize)
			}
			totalPage = ceilDiv(total, vs)
		}
		return items, total, totalPage, nil
	}
	items, total, err := window(ctx, fetch, size, (page-1)*limit, limit)
	if err != nil {
		return nil, 0, 0, err
	}
	return items, total, ceilDiv(total, limit), nil
}
