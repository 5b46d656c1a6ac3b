package sandbox

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// A Slack workspace of the sandbox: one per bot token, made from the
// token's hash so that a token always names the same workspace. It is one
// of the world's companies, its people the workspace's users.

// slackChannel is a channel of the sandbox's workspace.
type slackChannel struct {
	ID       string
	Name     string
	Private  bool
	Archived bool
	Member   bool // the bot is in it
	Members  int
	Created  int64
	Topic    string
	Purpose  string
	Messages []slackMessage // newest last, at most maxSlackMessages
}

// slackMessage is a posted message as chat.postMessage answers it.
type slackMessage struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype,omitempty"`
	Text    string `json:"text"`
	User    string `json:"user,omitempty"`
	BotID   string `json:"bot_id,omitempty"`
	TS      string `json:"ts"`
	Blocks  any    `json:"blocks,omitempty"`
}

// slackUser is a member of the sandbox's workspace.
type slackUser struct {
	ID, Name, RealName, DisplayName, Email, Title string
	Bot, Deleted                                  bool
}

type slackWorkspace struct {
	TeamID, Team, Domain string
	BotUserID, BotID     string
	Channels             []*slackChannel
	Users                []slackUser
	seq                  int64 // messages posted, for ts
	flaky                map[string]bool
}

// Bounds of the sandbox's Slack state.
const (
	maxSlackMessages   = 10_000 // per channel: older ones are dropped, as a free plan hides them
	maxSlackWorkspaces = 1_000  // beyond, the oldest-made workspace is forgotten
	slackUsersPerTeam  = 40
	slackChannelPage   = 15 // conversations.list answers at most this many per page, as Slack may
	slackUserPage      = 20
)

// slackChannelNames are the workspace's channels: public ones the bot is
// in (+), public ones it is not in (-), private ones it is in (p+) or not
// (p-, which a bot token never sees), archived ones (a).
var slackChannelNames = []string{
	"+:general", "-:random", "-:announcements", "+:sales", "+:marketing", "-:engineering", "-:product",
	"-:design", "+:support", "+:leads", "+:growth", "-:partnerships", "-:hiring", "-:ops", "-:finance",
	"+:customer-success", "+:deals-won", "+:alerts", "-:standup", "-:social", "-:feedback", "-:events",
	"-:content", "-:research", "+:flaky-alerts", "p+:sales-leadership", "p+:revops", "p-:exec",
	"p-:board", "p-:people-team", "a+:old-launch", "a-:2023-offsite",
}

// slackID is a Slack-shaped id: the prefix (C, U, T, B) then 10
// characters of [0-9A-Z] derived from seed.
func slackID(prefix, seed string) string {
	const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	h := hashString(7, seed)
	var b strings.Builder
	b.WriteString(prefix)
	b.WriteByte('0')
	for range 9 {
		b.WriteByte(digits[h%36])
		h /= 36
	}
	return b.String()
}

// newSlackWorkspace builds the workspace of token.
func (s *Sandbox) newSlackWorkspace(token string) *slackWorkspace {
	companies := s.world.Companies()
	co := companies[hashString(3, token)%uint64(len(companies))]
	ws := &slackWorkspace{
		TeamID: slackID("T", token), Team: co.Name, Domain: co.Domain,
		BotUserID: slackID("U", token+"/bot"), BotID: slackID("B", token+"/bot"),
		flaky: map[string]bool{},
	}
	created := int64(1_600_000_000)
	for i, spec := range slackChannelNames {
		flags, name, _ := strings.Cut(spec, ":")
		ch := &slackChannel{
			ID: slackID("C", token+"/"+name), Name: name,
			Private: strings.Contains(flags, "p"), Archived: strings.Contains(flags, "a"),
			Member:  strings.Contains(flags, "+"),
			Members: 3 + int(hashString(4, token+name)%uint64(slackUsersPerTeam-3)),
			Created: created + int64(i)*86_400*7,
			Purpose: "Talk about " + strings.ReplaceAll(name, "-", " ") + ".",
		}
		if name == "general" {
			ch.Members = slackUsersPerTeam
		}
		ws.Channels = append(ws.Channels, ch)
	}
	roster := s.world.Roster()
	start := int(hashString(5, token) % uint64(len(roster)))
	used := map[string]int{}
	for i := range slackUsersPerTeam {
		p := roster[(start+i)%len(roster)]
		handle := slackHandle(p.FirstName) + "." + slackHandle(p.LastName)
		if used[handle]++; used[handle] > 1 {
			handle = fmt.Sprintf("%s%d", handle, used[handle])
		}
		ws.Users = append(ws.Users, slackUser{
			ID: slackID("U", token+"/"+handle), Name: handle, RealName: p.FullName(), DisplayName: p.FirstName,
			Email: handle + "@" + co.Domain, Title: p.Title,
			// One former employee, deactivated, as every workspace has.
			Deleted: i == slackUsersPerTeam-1,
		})
	}
	ws.Users = append(ws.Users,
		slackUser{ID: ws.BotUserID, Name: "trawl", RealName: "Trawl", DisplayName: "Trawl", Bot: true},
		slackUser{ID: "USLACKBOT", Name: "slackbot", RealName: "Slackbot", DisplayName: "Slackbot"},
	)
	return ws
}

// slackHandle is name in lower-case ASCII letters.
func slackHandle(name string) string {
	return strings.Map(func(r rune) rune {
		r = unicode.ToLower(r)
		if r >= 'a' && r <= 'z' {
			return r
		}
		return -1
	}, name)
}

// channel finds a channel by id, or by name ("#sales" or "sales"), as
// chat.postMessage accepts both; a private channel the bot is not in is
// not found, as Slack hides it from the bot.
func (ws *slackWorkspace) channel(ref string) *slackChannel {
	name := strings.TrimPrefix(ref, "#")
	for _, ch := range ws.Channels {
		if (ch.ID == ref || ch.Name == name) && (!ch.Private || ch.Member) {
			return ch
		}
	}
	return nil
}

// visible says whether conversations.list shows the channel to the bot.
func (ws *slackWorkspace) visible(ch *slackChannel, types []string, excludeArchived bool) bool {
	kind := "public_channel"
	if ch.Private {
		kind = "private_channel"
	}
	return (!ch.Private || ch.Member) && (!excludeArchived || !ch.Archived) && slices.Contains(types, kind)
}
