package mapping

import (
	"context"
	"fmt"
)

// Engine answers social mapping and creator discovery queries over a Pool.
// A process keeps one: it holds this process's copies of what collection
// precomputed (copy.go), the posts each keyword matched (matches.go) and
// the per-query buffers, which queries reuse.
type Engine struct {
	pool Pool
	// folded is the copy of the folded filter columns.
	folded foldedPeople
	// packed is the copy of the packed engagements.
	packed packedEngagers
	// authors is creator discovery's copy of the posts' dates and authors.
	authors postAuthors
	// matches holds the posts the keyword index matched for the queries'
	// keywords.
	matches keywordMatches
	// personSlots and hitLists are social mapping's per-person buffers,
	// postSets its sets of qualifying posts and postCountSets its counts of
	// keyword mentions per post, reused: a query fills megabytes of them,
	// and fresh memory costs a page fault per page on first touch.
	personSlots   reused[[]int32]
	hitLists      reused[[]engagerHit]
	postSets      reused[idSet]
	postCountSets reused[[]uint8]

	// For tests: postsApart, when set, is minPostsApart instead;
	// afterMatchFill runs between asking the index and bringing what it
	// said up to date, afterAskAlone after each of the queries asked side
	// by side.
	postsApart     int
	afterMatchFill func()
	afterAskAlone  func(keyword string)
}

// NewEngine returns an engine that reads pool. Nothing is read before the
// first query, or Load.
func NewEngine(pool Pool) *Engine {
	return &Engine{pool: pool}
}

// SetPostsApart sets the fewest posts whose engagements a social mapping
// query reads in two halves side by side (0: the default, 2,048): tests
// set 1 to check that the halves merge into what one pass gives.
func (e *Engine) SetPostsApart(posts int) { e.postsApart = posts }

// Load reads the engine's copies (folded people, packed engagements,
// posts' authors), so that the first query after start-up does not wait
// for them: at a million people and ten million engagements that takes a
// few seconds.
func (e *Engine) Load(ctx context.Context) error {
	people, err := e.foldedCopy(ctx)
	if err != nil {
		return fmt.Errorf("mapping: load copies: %w", err)
	}
	n := len(people.flags)
	people.mu.RUnlock()
	e.warmPersonBuffers(n)
	packed, err := e.engagersCopy(ctx)
	if err != nil {
		return fmt.Errorf("mapping: load copies: %w", err)
	}
	packed.mu.RUnlock()
	authors, err := e.authorsCopy(ctx)
	if err != nil {
		return fmt.Errorf("mapping: load copies: %w", err)
	}
	authors.mu.RUnlock()
	return nil
}

// warmPersonBuffers keeps, for people people, the per-person buffers of the
// two halves a social mapping query reads side by side, written once: the
// first queries after start-up would otherwise fault in their megabytes
// (about 14 µs a page here), 10-25 ms on the reference pool. A list starts
// with room for an eighth of the people.
func (e *Engine) warmPersonBuffers(people int) {
	for range 2 {
		at := make([]int32, people+people/4)
		list := make([]engagerHit, people/8)
		for i := 0; i < len(at); i += 1024 { // a 4 KiB page
			at[i] = 0
		}
		for i := 0; i < len(list); i += 128 {
			list[i] = engagerHit{}
		}
		list = list[:0]
		e.personSlots.put(&at)
		e.hitLists.put(&list)
	}
}
