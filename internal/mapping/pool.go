package mapping

import "context"

// Pool is what the engine reads of the collected pool: every post, person
// and engagement the deployment's topics collected, what collection
// precomputed of them (the keyword index, each post's packed engagements,
// people's folded filter columns; docs/decisions.md) and the logs of
// their changes. The store implements it in plain SQL on both database
// engines (store.MappingPool); the Engine knows of the database underneath
// only what these methods say (SharesMatches, PacksPostings, PlanKeyword,
// TermsQuery, PrunedPast).
//
// Reads that must agree with each other (a log's position and the rows
// changed since, an index query and the posts pending) go through one
// Snapshot; the others read the pool as it is.
type Pool interface {
	// Snapshot begins a read-only transaction that reads one snapshot.
	Snapshot(ctx context.Context) (Snapshot, error)
	// PrunedPast reports whether pruning a log up to pruned deleted rows
	// a reader at position pos had not applied (Snapshot.Position).
	PrunedPast(pruned, pos uint64) bool
	// SharesMatches reports whether the processes share the entries of
	// keyword matches through the database (PostgreSQL, where several
	// processes serve the API; SharedMatches, ShareMatches).
	SharesMatches() bool
	// PacksPostings reports whether the pool keeps posting lists of the
	// keyword index (PostgreSQL; Snapshot.PostingBlocks).
	PacksPostings() bool

	// PlanKeyword is how this pool's index is asked about keyword
	// (PlanKeyword, adapted to what the index holds).
	PlanKeyword(keyword string) Keyword
	// TermsQuery is the index query (Snapshot.IndexMatches) for the posts
	// that mention k at least level times; phrases and loose keywords
	// by their words' positions.
	TermsQuery(k Keyword, level int) string

	// PeopleByID reads the collected people of ids (a person's JobTitle
	// is their headline until their profile is read).
	PeopleByID(ctx context.Context, ids []int64) (map[int64]Person, error)
	// PagePosts reads the posts of ids as a page of results shows them.
	PagePosts(ctx context.Context, ids []int64) (map[int64]PagePost, error)
	// PostTexts reads the text of the posts of ids (present ones only).
	PostTexts(ctx context.Context, ids []int64) ([]PostText, error)
	// Engagements reads the engagements of posts since `since` (ms) from
	// the pool tables, by post: for posts without a packed list.
	Engagements(ctx context.Context, posts []int64, since int64) (map[int64][]Engagement, error)
	// Topics reads the deployment's topics' keywords, newest first.
	Topics(ctx context.Context) ([]Topic, error)
	// LinkedPosts reads the posts the topics linked that were engaged
	// with since `since` (engaged), or published since then.
	LinkedPosts(ctx context.Context, topics []string, since int64, engaged bool) ([]int64, error)
	// AuthorsOf reads the person id of the author of each of posts whose
	// author is a collected person, one per such post.
	AuthorsOf(ctx context.Context, posts []int64) ([]int64, error)
	// AuthorStats reads, for each author (person id), their URN and the
	// statistics of their 10 most recent posts.
	AuthorStats(ctx context.Context, authors []int64) (map[int64]AuthorStat, error)
	// ShareMatches stores entries of keyword matches filled from the
	// index, each under its key, in place of those stored at an older
	// position.
	ShareMatches(ctx context.Context, entries []SharedMatch) error
}

// Snapshot reads the pool as of one snapshot. Close gives it back.
type Snapshot interface {
	Close()
	// Position is where the snapshot stands in a log (a log sequence, or
	// a transaction id: compare only through Pool.PrunedPast), and how
	// far pruning went. The first read of a snapshot fixes it.
	Position(ctx context.Context, log Log) (pos, pruned uint64, err error)
	// FoldedPeople calls each with every folded person (whole), or with
	// every person the people log names after position from, present or
	// not.
	FoldedPeople(ctx context.Context, whole bool, from uint64, each func(FoldedRow)) error
	// PackedEngagers calls each with every post's packed engagements
	// (whole), or with those of every post the engagers log names after
	// from: list is nil when the post has none, and valid only during
	// the call.
	PackedEngagers(ctx context.Context, whole bool, from uint64, each func(post int64, list []byte)) error
	// PostAuthors calls each with every post's date and author (whole),
	// or with those of every post the posts log names after from.
	PostAuthors(ctx context.Context, whole bool, from uint64, each func(AuthorRow)) error
	// ChangedPosts reads the posts the posts log names after from, with
	// their text, at most limit of them.
	ChangedPosts(ctx context.Context, from uint64, limit int) ([]PostText, error)
	// PendingPosts reads the posts whose keyword index is pending.
	PendingPosts(ctx context.Context) ([]PostText, error)
	// IndexMatches runs one index query (Pool.TermsQuery) and returns the
	// posts it matches.
	IndexMatches(ctx context.Context, query string) ([]int64, error)
	// SharedMatches reads the entries other processes shared under keys.
	SharedMatches(ctx context.Context, keys []string) (map[string]SharedMatch, error)
	// PostingBlocks reads the blocks of posting lists, by first id.
	PostingBlocks(ctx context.Context) ([]PostingBlock, error)
	// PostingLists reads the lists of lexemes, by block and lexeme.
	PostingLists(ctx context.Context, lexemes []string) (map[int64]map[string][]byte, error)
	// ChangedSinceBlocks reads the posts the posts log names since their
	// own block's position, or past the blocks, from position oldest on,
	// with their text, at most limit of them.
	ChangedSinceBlocks(ctx context.Context, oldest uint64, limit int) ([]PostText, error)
}

// Log names one of the logs of the tables the engine copies.
type Log int

const (
	PeopleLog   Log = iota // folded people (mapping_people)
	EngagersLog            // packed engagements (mapping_engagers)
	PostsLog               // posts: stored, moved, deleted, authors, texts (mapping_posts)
)

// Logs are the logs of the copied tables.
var Logs = []Log{PeopleLog, EngagersLog, PostsLog}

// FoldedRow is a person's folded filter columns as the pool holds them
// (FoldKey, FoldTitle); Present is false for a person without a row.
// TitleNull is set when the person's profile shows no title (the headline
// stands in and Match decides), HasFollowers when the count is known.
type FoldedRow struct {
	ID                                     int64
	Present, TitleNull, HasFollowers       bool
	Title, Domain, Size, Industry, Country string
	Followers                              int64
}

// AuthorRow is a post as creator discovery copies it: when it was
// published and its author's person id (0 for none, UnresolvedAuthor for
// an author who is no collected person); Present is false for a post that
// no longer exists.
type AuthorRow struct {
	ID, Posted, Author int64
	Present            bool
}

// UnresolvedAuthor is the author of a post whose author is no collected
// person (a company page, or a member not stored as a person yet).
const UnresolvedAuthor = -1

// PostText is a post's text; Present is false for a post that no longer
// exists.
type PostText struct {
	ID      int64
	Text    string
	Present bool
}

// PagePost is a post as a social mapping result shows it: its URN, and the
// members of its record the result shows.
type PagePost struct {
	URN                 string `json:"-"`
	Text                string `json:"text"`
	PostURL             string `json:"postUrl"`
	PostedDateTimestamp int64  `json:"postedDateTimestamp"`
	TotalReactionCount  int64  `json:"totalReactionCount"`
	CommentsCount       int64  `json:"commentsCount"`
}

// Topic is a topic's keywords.
type Topic struct {
	ID                    string
	Keywords, KeywordsAnd []string
}

// AuthorStat is an author's URN and the statistics of their 10 most recent
// posts in the pool: how many, their reactions + comments, the newest and
// oldest date (ms).
type AuthorStat struct {
	URN               string
	Posts, Engagement int64
	Newest, Oldest    int64
}

// SharedMatch is an entry of keyword matches as the processes share it:
// the posts it matched, packed (packIDs), as of log position Position.
type SharedMatch struct {
	Key      string
	Position int64
	Packed   []byte
}

// PostingBlock is a block of posting lists: the posts of ids [FirstID,
// EndID), as of log position Position, when NextID was one past the
// largest post id.
type PostingBlock struct {
	Block, FirstID, EndID int64
	Position, NextID      int64
}
