package sandbox

import (
	"net/http"
	"time"
)

// PronetPostByURN finds a post by its activity id: public-stream posts, and the own posts of
// roster people and company pages. ok is false for other ids, among them the posts of
// profiles and pages outside the roster (their id keeps only a hash of whose they are).
func (w *World) PronetPostByURN(urn uint64) (PronetPost, bool) {
	t := pronetIDs.timeOf(urn)
	payload := idPayload(urn)
	var found []PronetPost
	switch idKind(urn) {
	case streamPublic:
		i := int(payload >> 8)
		if i >= pronetPerHour {
			return PronetPost{}, false
		}
		p := w.PublicPronetPost(t.UnixMilli()/hourMS, i)
		return p, p.URN == urn
	case streamRoster:
		idx := int(payload >> 4)
		if idx >= len(w.people) {
			return PronetPost{}, false
		}
		found = w.streamPosts(pronetPersonal, streamRoster, uint64(idx), w.people[idx], nil, t, t.Add(time.Millisecond))
	case streamCompany:
		idx := int(payload >> 4)
		if idx >= len(w.companies) {
			return PronetPost{}, false
		}
		c := w.companies[idx]
		found = w.streamPosts(pronetCompany, streamCompany, uint64(idx), Person{}, &c, t, t.Add(time.Millisecond))
	}
	for _, p := range found {
		if p.URN == urn {
			return p, true
		}
	}
	return PronetPost{}, false
}

// pronetPost is the provider's GET /post?urn=N: one post record.
func (s *Sandbox) pronetPost(w http.ResponseWriter, r *http.Request) {
	now := s.now()
	urn, shape, ok := s.postURN(w, r.URL.Query(), now)
	if !ok {
		return
	}
	p, found := s.world.PronetPostByURN(urn)
	if !found {
		pronetError(w, http.StatusNotFound, "Post not found")
		return
	}
	pronetOK(w, pronetShapeObject(s.postRecord(p, now), shape, "urn", pronetSparsePost), nil)
}
