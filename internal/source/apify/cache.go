package apify

import (
	"container/list"
	"sync"
	"time"
)

// The run cache remembers, for an operation and its actor input, the dataset of the run that
// answered it, so that pages 2..n of a list read that dataset instead of running (and paying
// for) the actor again. It lives in the process: a restart runs the actor again.
const (
	runCacheSize = 256
	runCacheTTL  = 15 * time.Minute
)

// datasetRef is a finished run's dataset and how many items it holds.
type datasetRef struct {
	ID    string
	Total int
}

type cacheEntry struct {
	key     string
	ref     datasetRef
	expires time.Time
}

// runCache is a bounded LRU with a time to live, safe for concurrent use.
type runCache struct {
	mu    sync.Mutex
	size  int
	ttl   time.Duration
	now   func() time.Time
	order *list.List // front: most recently used
	byKey map[string]*list.Element
}

func newRunCache(size int, ttl time.Duration, now func() time.Time) *runCache {
	return &runCache{size: size, ttl: ttl, now: now, order: list.New(), byKey: map[string]*list.Element{}}
}

func (rc *runCache) get(key string) (datasetRef, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	el, ok := rc.byKey[key]
	if !ok {
		return datasetRef{}, false
	}
	e := el.Value.(*cacheEntry)
	if !rc.now().Before(e.expires) {
		rc.order.Remove(el)
		delete(rc.byKey, key)
		return datasetRef{}, false
	}
	rc.order.MoveToFront(el)
	return e.ref, true
}

func (rc *runCache) put(key string, ref datasetRef) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	exp := rc.now().Add(rc.ttl)
	if el, ok := rc.byKey[key]; ok {
		e := el.Value.(*cacheEntry)
		e.ref, e.expires = ref, exp
		rc.order.MoveToFront(el)
		return
	}
	rc.byKey[key] = rc.order.PushFront(&cacheEntry{key: key, ref: ref, expires: exp})
	for rc.order.Len() > rc.size {
		last := rc.order.Back()
		rc.order.Remove(last)
		delete(rc.byKey, last.Value.(*cacheEntry).key)
	}
}

func (rc *runCache) len() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.order.Len()
}

// flights are the runs under way, by cache key: a call that asks for the input of a run in
// progress waits for it instead of running (and paying for) the actor a second time.
type flights struct {
	mu     sync.Mutex
	m      map[string]chan struct{}
	shared int // calls that waited for another's run rather than starting one
}

// join returns the channel closed when the run of key ends, and whether the caller is to run it.
func (f *flights) join(key string) (done chan struct{}, leader bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if done, ok := f.m[key]; ok {
		f.shared++
		return done, false
	}
	if f.m == nil {
		f.m = map[string]chan struct{}{}
	}
	done = make(chan struct{})
	f.m[key] = done
	return done, true
}

// leave ends the run of key: the callers waiting for it look in the cache again.
func (f *flights) leave(key string, done chan struct{}) {
	f.mu.Lock()
	delete(f.m, key)
	f.mu.Unlock()
	close(done)
}

// sharedRuns is how many calls waited for another's run rather than starting one.
func (f *flights) sharedRuns() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.shared
}
