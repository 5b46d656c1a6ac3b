package sandbox

import (
	"fmt"
	"net/mail"
	"strings"
	"sync"
	"time"
)

// The outreach tools' sandboxes (Smartlead, Instantly, lemlist, HeyReach)
// share one kind of state: per credential, a workspace of seeded campaigns
// (and HeyReach lists) holding leads keyed by a normalised email or
// LinkedIn URL. Each service's file speaks its own protocol over it.

// Bounds of the outreach sandboxes' memory.
const (
	outreachMaxLeads      = 10_000 // leads per workspace
	outreachMaxWorkspaces = 1_000  // credentials remembered at once
)

// outreachCampaign is a seeded campaign (or list) of a workspace.
type outreachCampaign struct {
	ID      string
	Name    string
	Status  string
	Created time.Time
	// leads by normalised key, and their order of arrival.
	leads map[string]*outreachLead
	order []*outreachLead
}

// outreachLead is a lead as the service stored it.
type outreachLead struct {
	ID      string
	Key     string // normalised email or profile URL
	Fields  map[string]any
	Created time.Time
}

type outreachWorkspace struct {
	campaigns []*outreachCampaign
	byID      map[string]*outreachCampaign
	leads     int
	// failedOnce are the flaky- keys whose first request already failed.
	failedOnce map[string]bool
	seq        int
}

// outreachStore is one service's workspaces, by credential.
type outreachStore struct {
	mu  sync.Mutex
	now func() time.Time
	// seed makes a new workspace's campaigns from its credential.
	seed func(cred string) []*outreachCampaign
	ws   map[string]*outreachWorkspace
}

func newOutreachStore(now func() time.Time, seed func(cred string) []*outreachCampaign) *outreachStore {
	return &outreachStore{now: now, seed: seed, ws: map[string]*outreachWorkspace{}}
}

// with runs f on the credential's workspace under the store's lock.
func (s *outreachStore) with(cred string, f func(w *outreachWorkspace)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.ws[cred]
	if !ok {
		if len(s.ws) >= outreachMaxWorkspaces {
			for k := range s.ws { // forget one: a bounded sandbox, not a database
				delete(s.ws, k)
				break
			}
		}
		w = &outreachWorkspace{byID: map[string]*outreachCampaign{}, failedOnce: map[string]bool{}}
		for _, c := range s.seed(cred) {
			c.leads = map[string]*outreachLead{}
			w.campaigns = append(w.campaigns, c)
			w.byID[c.ID] = c
		}
		s.ws[cred] = w
	}
	f(w)
}

// flaky tells whether a request about key must fail once now: the first
// request about a key starting "flaky-" (an email's or a profile's) does.
func (w *outreachWorkspace) flaky(key string) bool {
	if !strings.HasPrefix(flakyPart(key), "flaky-") || w.failedOnce[key] {
		return false
	}
	w.failedOnce[key] = true
	return true
}

// flakyPart is the part of a key the flaky- convention reads: an email
// as is, a profile URL's last path segment.
func flakyPart(key string) string {
	key = strings.TrimSuffix(key, "/")
	if i := strings.LastIndex(key, "/"); i >= 0 {
		return key[i+1:]
	}
	return key
}

// add stores a lead under key in c unless one is there; it answers the
// lead and whether it is new, or full when the workspace is at its cap.
// newID makes a new lead's id, in the service's format, from its
// sequence number in the workspace.
func (w *outreachWorkspace) add(c *outreachCampaign, key string, newID func(seq int) string, fields map[string]any, now time.Time) (l *outreachLead, added, full bool) {
	if l, ok := c.leads[key]; ok {
		return l, false, false
	}
	if w.leads >= outreachMaxLeads {
		return nil, false, true
	}
	w.seq++
	w.leads++
	l = &outreachLead{ID: newID(w.seq), Key: key, Fields: fields, Created: now}
	c.leads[key] = l
	c.order = append(c.order, l)
	return l, true, false
}

// inOther tells whether key is a lead of another campaign of w than c.
func (w *outreachWorkspace) inOther(c *outreachCampaign, key string) bool {
	for _, o := range w.campaigns {
		if o != c && o.leads[key] != nil {
			return true
		}
	}
	return false
}

// normEmail is the key of an email address, "" when it is not one.
func normEmail(s string) string {
	s = strings.TrimSpace(s)
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || !strings.Contains(s[strings.LastIndex(s, "@"):], ".") {
		return ""
	}
	return strings.ToLower(s)
}

// normProfileURL is the key of a LinkedIn profile URL ("" when it is not
// one): host and scheme, case, query and trailing slash do not count.
func normProfileURL(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimPrefix(strings.TrimPrefix(s, "https://"), "http://")
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	host, path, ok := strings.Cut(s, "/")
	if !ok || !(host == "linkedin.com" || strings.HasSuffix(host, ".linkedin.com")) {
		return ""
	}
	path = strings.TrimSuffix(path, "/")
	slug, ok := strings.CutPrefix(path, "in/")
	if !ok || slug == "" || strings.Contains(slug, "/") {
		return ""
	}
	return "linkedin.com/in/" + slug
}

// hexID is a deterministic hex id of n characters from seed.
func hexID(seed string, n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%016x", hashString(uint64(i), seed))
	}
	return b.String()[:n]
}

// uuidFrom is a UUID-shaped id derived from seed.
func uuidFrom(seed string) string {
	h := hexID(seed, 32)
	return h[:8] + "-" + h[8:12] + "-7" + h[13:16] + "-a" + h[17:20] + "-" + h[20:32]
}
