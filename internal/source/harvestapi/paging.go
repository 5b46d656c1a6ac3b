package harvestapi

import (
	"context"
	"encoding/json"
)

// fetchFunc reads one vendor page (from 1), given the token the previous page handed out.
type fetchFunc func(ctx context.Context, page int, token string) ([]json.RawMessage, *pagination, error)

type vendorPage struct {
	items []json.RawMessage
	pag   *pagination
}

func (p vendorPage) token() string {
	if p.pag == nil {
		return ""
	}
	return string(p.pag.PaginationToken)
}

// more reports whether a vendor page n of size vs is followed by another.
func (p vendorPage) more(n, vs int) bool {
	if len(p.items) == 0 {
		return false
	}
	if p.pag == nil {
		return len(p.items) >= vs
	}
	if p.pag.PaginationToken != "" || int(p.pag.TotalPages) > n {
		return true
	}
	return p.pag.TotalPages == 0 && len(p.items) >= vs
}

// window reads the items [start, start+count) of a list the vendor serves in pages of its own
// size (pagination.pageSize when it says, else size), fetching the pages that hold them in
// order. total is the vendor's count of the whole list, or what the pages read show.
func window(ctx context.Context, fetch fetchFunc, size, start, count int) (items []json.RawMessage, total int, err error) {
	vs := max(size, 1)
	pages := map[int]vendorPage{}
	get := func(n int, token string) (vendorPage, error) {
		if p, ok := pages[n]; ok {
			return p, nil
		}
		raw, pag, err := fetch(ctx, n, token)
		if err != nil {
			return vendorPage{}, err
		}
		p := vendorPage{items: raw, pag: pag}
		pages[n] = p
		return p, nil
	}
	first := start/vs + 1
	p, err := get(first, "")
	if err != nil {
		return nil, 0, err
	}
	if p.pag != nil && p.pag.PageSize > 0 && int(p.pag.PageSize) != vs {
		// The vendor's pages are not the size assumed: read the page that really holds start.
		vs = int(p.pag.PageSize)
		if n := start/vs + 1; n != first {
			first = n
			if p, err = get(first, ""); err != nil {
				return nil, 0, err
			}
		}
	}
	total = vendorTotal(p.pag)
	off := start - (first-1)*vs
	n := first
	for {
		if off < len(p.items) {
			items = append(items, p.items[off:]...)
		}
		off = max(off-len(p.items), 0)
		if len(items) >= count || !p.more(n, vs) {
			break
		}
		if p, err = get(n+1, p.token()); err != nil {
			return nil, 0, err
		}
		n++
	}
	if len(items) > count {
		items = items[:count]
	}
	if total == 0 {
		// No count from the vendor: what was seen, or at least every page it announced.
		total = max((n-1)*vs+len(pages[n].items), start+len(items))
		if pag := pages[first].pag; pag != nil && int(pag.TotalPages)*vs > total {
			total = int(pag.TotalPages) * vs
		}
	}
	return items, total, nil
}

func vendorTotal(p *pagination) int {
	if p == nil {
		return 0
	}
	return int(max(p.TotalElements, p.TotalResultCount))
}

func ceilDiv(a, b int) int {
	if b <= 0 || a <= 0 {
		return 0
	}
	return (a + b - 1) / b
}
