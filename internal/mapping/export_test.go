package mapping

// AfterMatchFill runs f between asking the keyword index and bringing
// what it said up to date.
func (e *Engine) AfterMatchFill(f func()) { e.afterMatchFill = f }

// AfterAskAlone sets a hook run after each keyword asked side by side, and
// how many are asked at once.
func (e *Engine) AfterAskAlone(atOnce int, f func(keyword string)) {
	e.matches.atOnce, e.afterAskAlone = atOnce, f
}

// SharedMatchKey is the key under which the processes share the posts a
// keyword matched at level.
func (e *Engine) SharedMatchKey(keyword string, level int) string {
	k := e.pool.PlanKeyword(keyword)
	return sharedKey(e.indexQuery(keyword, k, level))
}
