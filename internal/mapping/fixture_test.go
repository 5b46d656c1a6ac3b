package mapping_test

import (
	"time"

	"github.com/trawlhq/trawl/internal/store/storetest"
)

// The conformance suite runs the engine over the store's pool on every
// engine under test (storetest.Engines), against the hand-made fixture of
// storetest.NewMappingFixture and the brute-force oracle of
// storetest.CheckOracle, shared with the store's own tests of what
// collection precomputes.
var (
	mapNow             = storetest.MapNow
	fxPosts            = storetest.FxPosts
	fxPostURN          = storetest.FxPostURN
	fxPersonURN        = storetest.FxPersonURN
	newMappingFixture  = storetest.NewMappingFixture
	checkOracle        = storetest.CheckOracle
	awaitRowsPrunable  = storetest.AwaitRowsPrunable
	changedQuery       = storetest.ChangedQuery
	changeMatchedTexts = storetest.ChangeMatchedTexts
	setPostText        = storetest.SetPostText
)

type (
	mappingFixture = storetest.MappingFixture
	fxEngagement   = storetest.FxEngagement
)

const (
	day     = 24 * time.Hour
	noLimit = storetest.NoLimit
)

func followers(n int64) *int64 { return &n }
