package sandbox

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

const (
	pronetPerHour   = 10
	pronetPersonal  = 8 * time.Hour  // a profile's own posting slot
	pronetCompany   = 12 * time.Hour // a company page's posting slot
	pronetWindow    = 60 * 24 * time.Hour
	pronetSearchMax = 30 * 24 * time.Hour
)

// PronetPost is a post on the professional network, by a person or a company page.
type PronetPost struct {
	URN      uint64
	Time     time.Time
	Author   Person   // for person posts
	Company  *Company // for company page posts
	Text     string
	Topic    int
	Images   []string
	Video    bool
	Live     bool // a live video (Video is set too)
	Document bool // a document (carousel) post
	Link     string
	Reshared *PronetPost
	// Mentions: the members and the company the text names (the author's employer, in the
	// "As a <title> at <company>" opening).
	MentionsMembers []Person
	MentionsCompany *Company
	hash            uint64
}

// PronetFinal are the final engagement counts of the post with this urn. They depend on the
// urn only, so comments and reactions answer for any urn without finding the post.
func (w *World) pronetFinal(urn uint64) (reactions, comments, reposts int, h uint64) {
	h = hashN(w.seed, 0xe1, urn)
	r := newRNG(h)
	reactions = r.heavy(7)
	comments = min(300, reactions/8+r.intn(4))
	reposts = reactions / 20
	return reactions, comments, reposts, h
}

// pronetAuthor picks the author of public post i of bucket b: a roster person, or (15%) a company.
func (w *World) pronetAuthor(b int64, i int) (company bool, idx int) {
	h := hashN(w.seed, 0xe2, uint64(b), uint64(i))
	if h%100 < 15 {
		return true, int((h >> 8) % rosterCompanies)
	}
	return false, int((h >> 8) % rosterPeople)
}

// PublicPronetPost is post i of the public pronet stream's hour bucket b.
func (w *World) PublicPronetPost(b int64, i int) PronetPost {
	h := hashN(w.seed, 0xe3, uint64(b), uint64(i))
	r := newRNG(h)
	t := time.UnixMilli(b*hourMS + int64(r.intn(int(hourMS)))).UTC()
	urn := pronetIDs.mint(t, streamPublic, uint64(i)<<8|h>>56)
	isCo, idx := w.pronetAuthor(b, i)
	if isCo {
		c := w.companies[idx]
		return w.composePronet(r, urn, t, Person{}, &c, b)
	}
	return w.composePronet(r, urn, t, w.people[idx], nil, b)
}

func (w *World) composePronet(r *rng, urn uint64, t time.Time, author Person, company *Company, b int64) PronetPost {
	p := PronetPost{URN: urn, Time: t, Author: author, Company: company, hash: r.next()}
	if company != nil {
		p.Topic = weighted(r, topicWeights)
	} else {
		p.Topic = pickTopic(r, author)
	}
	tp := topics[p.Topic]
	var sb strings.Builder
	if company == nil && r.chance(0.35) {
		fmt.Fprintf(&sb, "As %s at %s, I get asked about %s a lot.\n\n", article(author.Title), author.Company.Name, tp.Name)
		employer := author.Company
		p.MentionsCompany = &employer
	}
	if company != nil {
		fmt.Fprintf(&sb, "At %s we think a lot about %s.\n\n", company.Name, tp.Name)
	}
	sb.WriteString(w.sentence(r, p.Topic, "en"))
	sb.WriteString(" ")
	sb.WriteString(w.sentence(r, p.Topic, "en"))
	if r.chance(0.5) {
		fmt.Fprintf(&sb, "\n\nWe use %s for %s.", pick(r, tp.Tools), pick(r, tp.Keywords))
	}
	if c := pick(r, closers); c != "" {
		sb.WriteString("\n\n" + c)
	}
	sb.WriteString("\n\n")
	for i, n := 0, r.between(1, 3); i < n; i++ {
		tag := "#" + pick(r, tp.Hashtags)
		if !strings.Contains(sb.String(), tag+" ") {
			sb.WriteString(tag + " ")
		}
	}
	p.Text = strings.TrimSpace(sb.String())
	if company == nil {
		w.mentionMember(&p)
	}
	switch v := r.intn(100); {
	case v < 25:
		for n := r.between(1, 3); n > 0; n-- {
			p.Images = append(p.Images, fmt.Sprintf("https://media.licdn.com/dms/image/feedshare/%d-%d.jpg", urn, n))
		}
	case v < 30:
		p.Video = true
	case v < 45:
		c := w.companies[r.intn(len(w.companies))]
		p.Link = fmt.Sprintf("https://%s/blog/%s", c.Domain, strings.ReplaceAll(strings.ToLower(tp.Name), " ", "-"))
	}
	// Live videos and documents come from the post's hash, not the generator, so adding them
	// left every other post as it was.
	switch k := mix(p.hash^0x6b696e64) % 100; {
	case p.Video:
		p.Live = k < 20
	case len(p.Images) == 0 && p.Link == "":
		p.Document = k < 12
	}
	if company == nil && r.chance(0.08) {
		ob := b - 1 - int64(r.intn(48))
		orig := w.PublicPronetPost(ob, r.intn(pronetPerHour))
		if orig.Reshared == nil {
			p.Reshared = &orig
		}
	}
	return p
}

// Member mentions: a fifth of people's posts thank someone, always one of the world's most
// mentioned people (the first of the fixed shuffle), so that a mention-filtered search finds
// posts every week. They come from the post's hash, not the generator, so adding them left
// every other part of every post as it was.
const (
	mentionPercent = 20
	mentionable    = 40
)

var mentionLines = []string{
	"Thanks to %s for the conversation that started this.",
	"Great chat with %s about exactly this last week.",
	"Shout-out to %s, who has been saying this for years.",
}

func (w *World) mentionMember(p *PronetPost) {
	k := mix(p.hash ^ 0x6d656e74)
	if k%100 >= mentionPercent {
		return
	}
	m := w.people[w.shuffle[int(k>>8%mentionable)]]
	if m.Index == p.Author.Index {
		return
	}
	p.MentionsMembers = append(p.MentionsMembers, m)
	line := fmt.Sprintf(mentionLines[int(k>>16%uint64(len(mentionLines)))], m.FullName())
	// Before the closing hashtags, as people write them.
	if i := strings.LastIndex(p.Text, "\n\n"); i >= 0 {
		p.Text = p.Text[:i] + "\n\n" + line + p.Text[i:]
	} else {
		p.Text += "\n\n" + line
	}
}

// MostMentioned are the people member mentions name, most mentioned or not: the ones a
// mention-filtered search finds posts about.
func (w *World) MostMentioned() []Person {
	out := make([]Person, mentionable)
	for i := range out {
		out[i] = w.people[w.shuffle[i]]
	}
	return out
}

// Mentions reports whether the post mentions one of the members (member URNs) or one of the
// companies (numeric ids), as a search's mentionsMember and mentionsOrganization filter it;
// an empty list does not filter.
func (p PronetPost) Mentions(members, companies map[string]bool) bool {
	if len(members) > 0 {
		found := false
		for _, m := range p.MentionsMembers {
			found = found || members[m.PronetURN()]
		}
		if !found {
			return false
		}
	}
	if len(companies) > 0 && (p.MentionsCompany == nil || !companies[fmt.Sprint(p.MentionsCompany.ID)]) {
		return false
	}
	return true
}

func article(s string) string {
	if strings.ContainsAny(s[:1], "AEIOU") {
		return "an " + s
	}
	return "a " + s
}

// streamPosts returns own posts of a stream (slot length, stream kind, key) in [from, to).
func (w *World) streamPosts(slot time.Duration, kind int, key uint64, author Person, company *Company, from, to time.Time) []PronetPost {
	var out []PronetPost
	slotMS := int64(slot / time.Millisecond)
	for s := from.UnixMilli() / slotMS; s <= to.UnixMilli()/slotMS; s++ {
		n := int(hashN(w.seed, 0xe4, key, uint64(kind), uint64(s)) % 3)
		for j := 0; j < n; j++ {
			h := hashN(w.seed, 0xe5, key, uint64(kind), uint64(s), uint64(j))
			r := newRNG(h)
			t := time.UnixMilli(s*slotMS + int64(r.intn(int(slotMS)))).UTC()
			if t.Before(from) || !t.Before(to) {
				continue
			}
			urn := pronetIDs.mint(t, kind, key<<4|uint64(j))
			out = append(out, w.composePronet(r, urn, t, author, company, t.UnixMilli()/hourMS))
		}
	}
	return out
}

// ProfilePosts are a person's pronet posts in [from, to), newest first.
func (w *World) ProfilePosts(p Person, from, to time.Time) []PronetPost {
	kind, key := streamRoster, uint64(p.Index)
	if p.Index < 0 {
		kind, key = streamOther, hashString(w.seed, "in/"+p.PronetUsername)&0xffff
	}
	out := w.streamPosts(pronetPersonal, kind, key, p, nil, from, to)
	if p.Index >= 0 {
		out = append(out, w.scanPublicPronet(from, to, func(isCo bool, idx int) bool { return !isCo && idx == p.Index })...)
	}
	slices.SortFunc(out, func(a, b PronetPost) int { return cmpDesc(a.URN, b.URN) })
	return out
}

// CompanyPosts are a company page's posts in [from, to), newest first.
func (w *World) CompanyPosts(c Company, from, to time.Time) []PronetPost {
	kind, key := streamCompany, uint64(c.Index)
	if c.Index < 0 {
		kind, key = streamOther, hashString(w.seed, "company/"+c.Slug)&0xffff
	}
	out := w.streamPosts(pronetCompany, kind, key, Person{}, &c, from, to)
	if c.Index >= 0 {
		out = append(out, w.scanPublicPronet(from, to, func(isCo bool, idx int) bool { return isCo && idx == c.Index })...)
	}
	slices.SortFunc(out, func(a, b PronetPost) int { return cmpDesc(a.URN, b.URN) })
	return out
}

func (w *World) scanPublicPronet(from, to time.Time, want func(isCo bool, idx int) bool) []PronetPost {
	var out []PronetPost
	for b := from.UnixMilli() / hourMS; b <= to.UnixMilli()/hourMS; b++ {
		for i := 0; i < pronetPerHour; i++ {
			if !want(w.pronetAuthor(b, i)) {
				continue
			}
			p := w.PublicPronetPost(b, i)
			if !p.Time.Before(from) && p.Time.Before(to) {
				out = append(out, p)
			}
		}
	}
	return out
}

// Reactor is one reaction on a post.
type Reactor struct {
	Person Person
	Type   string
	Time   time.Time
}

// Reactors are the reactions on post urn visible at now, oldest first; the list only grows.
func (w *World) Reactors(urn uint64, now time.Time) []Reactor {
	final, _, _, h := w.pronetFinal(urn)
	created := pronetIDs.timeOf(urn)
	n := grown(final, created, now)
	out := make([]Reactor, 0, n)
	for k := 0; k < n; k++ {
		at, _ := grownAt(final, k, created)
		out = append(out, Reactor{Person: w.people[w.engagerIndex(h, k)], Type: reactionType(h, k), Time: minTime(at, now)})
	}
	return out
}

func reactionType(h uint64, k int) string {
	return reactionTypes[weighted(newRNG(hashN(h, uint64(k))), reactionWeights)]
}

func minTime(a, b time.Time) time.Time {
	if a.IsZero() || a.After(b) {
		return b
	}
	return a
}

// Comment is a comment (or reply) on a pronet post.
type Comment struct {
	ID      uint64
	PostURN uint64
	Person  Person
	Text    string
	Time    time.Time
	Likes   int
	Pinned  bool
	Edited  bool
	Replies []Comment
}

// Comments are the comments on post urn visible at now, oldest first; the list only grows.
func (w *World) Comments(urn uint64, now time.Time) []Comment {
	_, final, _, h := w.pronetFinal(urn)
	ch := mix(h ^ 0x636f6d6d)
	created := pronetIDs.timeOf(urn)
	n := grown(final, created, now)
	out := make([]Comment, 0, n)
	for k := 0; k < n; k++ {
		at, _ := grownAt(final, k, created)
		at = minTime(at, now)
		r := newRNG(hashN(ch, uint64(k)))
		c := Comment{ID: pronetIDs.mint(at, streamPublic, uint64(k)&0xfffff), PostURN: urn, Person: w.people[w.engagerIndex(ch, k)],
			Text: pick(r, commentTexts), Time: at, Likes: grown(r.heavy(4), at, now), Pinned: k == 0 && r.chance(0.1), Edited: r.chance(0.1)}
		for j, nr := 0, r.intn(3); j < nr; j++ {
			rt := at.Add(time.Duration(1+r.intn(24*60)) * time.Minute)
			if rt.After(now) {
				continue
			}
			c.Replies = append(c.Replies, Comment{ID: pronetIDs.mint(rt, streamOther, uint64(k)<<4|uint64(j)), PostURN: urn,
				Person: w.people[r.intn(len(w.people))], Text: pick(r, commentTexts), Time: rt, Likes: grown(r.heavy(2), rt, now)})
		}
		out = append(out, c)
	}
	return out
}
