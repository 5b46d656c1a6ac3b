package store_test

import (
	"time"

	"github.com/trawlhq/trawl/internal/store/storetest"
)

// The mapping fixture and oracle (storetest), shared with the mapping
// engine's conformance suite (internal/mapping): the store's tests of what
// collection precomputes check the engine's answers over it.
var (
	mapNow             = storetest.MapNow
	fxPosts            = storetest.FxPosts
	fxProfiles         = storetest.FxProfiles
	fxEngagements      = storetest.FxEngagements
	fxPostURN          = storetest.FxPostURN
	fxPersonURN        = storetest.FxPersonURN
	fxHeadline         = storetest.FxHeadline
	fxEngager          = storetest.FxEngager
	fxRecord           = storetest.FxRecord
	newMappingFixture  = storetest.NewMappingFixture
	checkOracle        = storetest.CheckOracle
	awaitRowsPrunable  = storetest.AwaitRowsPrunable
	changeMatchedTexts = storetest.ChangeMatchedTexts
)

type (
	fxPost       = storetest.FxPost
	fxEngagement = storetest.FxEngagement
)

const (
	fxAllocation = storetest.FxAllocation
	day          = 24 * time.Hour
	noLimit      = storetest.NoLimit
)
