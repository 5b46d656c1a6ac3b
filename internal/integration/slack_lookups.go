package integration

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Bounds of the Slack lookups: a page is what Slack recommends (≤ 200),
// and a workspace larger than the bound is answered in part rather than
// read for minutes.
const (
	slackPageSize  = 200
	MaxSlackListed = 5000
	// maxSlackPages stops a service that keeps answering cursors with
	// nearly empty pages.
	maxSlackPages = 100
)

// SlackChannel is one channel of the channels lookup.
type SlackChannel struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	IsPrivate  bool   `json:"is_private"`
	IsMember   bool   `json:"is_member"`
	NumMembers *int   `json:"num_members,omitempty"`
}

// SlackUser is one user of the users lookup.
type SlackUser struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	RealName string `json:"real_name"`
	Email    string `json:"email,omitempty"`
	IsBot    bool   `json:"is_bot"`
}

type slackMeta struct {
	NextCursor string `json:"next_cursor"`
}

// slackPaged calls a cursor-paged list method until Slack gives no
// next_cursor, fn returns false, or the bounds are reached; page decodes
// one answer and returns its response_metadata and its items' count.
func slackPaged(ctx context.Context, c *Conn, method string, args url.Values, page func() (any, *slackMeta, func() int), fn func() bool) error {
	cursor := ""
	seen, pages := 0, 0
	for {
		q := url.Values{}
		for k, v := range args {
			q[k] = v
		}
		q.Set("limit", strconv.Itoa(slackPageSize))
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		out, meta, count := page()
		if err := SlackCall(ctx, c, method, q, nil, out); err != nil {
			return err
		}
		seen += count()
		pages++
		if !fn() || meta.NextCursor == "" || meta.NextCursor == cursor || seen >= MaxSlackListed || pages >= maxSlackPages {
			return nil
		}
		cursor = meta.NextCursor
	}
}

// slackChannelPage is one answer of conversations.list.
type slackChannelPage struct {
	Channels []struct {
		ID         string `json:"id"`
		Name       string `json:"name"`
		IsPrivate  bool   `json:"is_private"`
		IsMember   bool   `json:"is_member"`
		IsArchived bool   `json:"is_archived"`
		NumMembers *int   `json:"num_members"`
	} `json:"channels"`
	Meta slackMeta `json:"response_metadata"`
}

// SlackChannels walks the workspace's public and private channels that
// are not archived (conversations.list), page by page, until fn returns
// false or MaxSlackListed were read. Private channels are listed only
// when the bot is in them (Slack's rule for bot tokens).
func SlackChannels(ctx context.Context, c *Conn, fn func(SlackChannel) bool) error {
	args := url.Values{"types": {"public_channel,private_channel"}, "exclude_archived": {"true"}}
	var p *slackChannelPage
	more := true
	return slackPaged(ctx, c, "conversations.list", args,
		func() (any, *slackMeta, func() int) {
			p = &slackChannelPage{}
			return p, &p.Meta, func() int { return len(p.Channels) }
		},
		func() bool {
			for _, ch := range p.Channels {
				if ch.IsArchived || ch.ID == "" {
					continue
				}
				if more = fn(SlackChannel{ID: ch.ID, Name: ch.Name, IsPrivate: ch.IsPrivate, IsMember: ch.IsMember, NumMembers: ch.NumMembers}); !more {
					break
				}
			}
			return more
		})
}

// SlackChannelID resolves a channel's name ("#sales" or "sales") to its
// id through conversations.list; a channel the bot cannot see is an
// *Error 404 channel_not_found, as chat.postMessage would answer.
func SlackChannelID(ctx context.Context, c *Conn, name string) (string, error) {
	name = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(name), "#"))
	id := ""
	err := SlackChannels(ctx, c, func(ch SlackChannel) bool {
		if strings.ToLower(ch.Name) == name {
			id = ch.ID
			return false
		}
		return true
	})
	if err != nil {
		return "", err
	}
	if id == "" {
		return "", &Error{Service: c.Type.DisplayName, Status: http.StatusNotFound, Message: "channel_not_found"}
	}
	return id, nil
}

// slackChannelsLookup answers GET /v1/integrations/slack/channels:
// search (a part of the name, case-insensitive, "#" ignored) and
// member_only (only channels the bot may post in), sorted by name.
func slackChannelsLookup(ctx context.Context, c *Conn, params url.Values) (any, error) {
	search := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(params.Get("search")), "#"))
	memberOnly := false
	if v := params.Get("member_only"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, &ParamError{Param: "member_only", Message: "must be true or false"}
		}
		memberOnly = b
	}
	out := []SlackChannel{}
	err := SlackChannels(ctx, c, func(ch SlackChannel) bool {
		if (!memberOnly || ch.IsMember) && strings.Contains(strings.ToLower(ch.Name), search) {
			out = append(out, ch)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b SlackChannel) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

// slackUserPage is one answer of users.list.
type slackUserPage struct {
	Members []struct {
		ID       string `json:"id"`
		Name     string `json:"name"`
		RealName string `json:"real_name"`
		Deleted  bool   `json:"deleted"`
		IsBot    bool   `json:"is_bot"`
		Profile  struct {
			RealName    string `json:"real_name"`
			DisplayName string `json:"display_name"`
			Email       string `json:"email"`
		} `json:"profile"`
	} `json:"members"`
	Meta slackMeta `json:"response_metadata"`
}

// slackUsersLookup answers GET /v1/integrations/slack/users: the
// workspace's people (users.list) without deactivated accounts, bots and
// Slackbot (which Slack does not flag as a bot), search matching a part
// of the handle, the real or display name or the email, sorted by real
// name. The email is there only when the app has users:read.email.
func slackUsersLookup(ctx context.Context, c *Conn, params url.Values) (any, error) {
	search := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(params.Get("search")), "@"))
	out := []SlackUser{}
	var p *slackUserPage
	err := slackPaged(ctx, c, "users.list", nil,
		func() (any, *slackMeta, func() int) {
			p = &slackUserPage{}
			return p, &p.Meta, func() int { return len(p.Members) }
		},
		func() bool {
			for _, m := range p.Members {
				if m.Deleted || m.IsBot || m.ID == "USLACKBOT" || m.ID == "" {
					continue
				}
				realName := cmp.Or(m.RealName, m.Profile.RealName)
				hay := strings.ToLower(m.Name + "\x00" + realName + "\x00" + m.Profile.DisplayName + "\x00" + m.Profile.Email)
				if strings.Contains(hay, search) {
					out = append(out, SlackUser{ID: m.ID, Name: m.Name, RealName: realName, Email: m.Profile.Email})
				}
			}
			return true
		})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b SlackUser) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.RealName), strings.ToLower(b.RealName)), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}
