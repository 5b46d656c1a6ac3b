package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Slack's Web API, the subset Trawl's connection uses
// (docs/integrations/slack.md): POST|GET /auth.test, /conversations.list,
// /users.list, /chat.postMessage and /conversations.history. As Slack
// does, it answers HTTP 200 with {"ok": false, "error": code} for
// refusals, and 429 with Retry-After when rate limited. A token (after
// its xoxb-/xoxp- prefix) starting "invalid" is invalid_auth, starting
// "ratelimited" is always rate limited; a channel named flaky-… is rate
// limited on its first post, then accepts.

// slackState is the sandbox's Slack workspaces, by token.
type slackState struct {
	mu    sync.Mutex
	teams map[string]*slackWorkspace
	order []string // tokens in the order their workspaces were made
}

func (s *Sandbox) slackHandler() http.Handler {
	st := &slackState{teams: map[string]*slackWorkspace{}}
	methods := map[string]func(ws *slackWorkspace, args slackArgs) (int, any){
		"auth.test":             slackAuthTest,
		"conversations.list":    slackConversationsList,
		"users.list":            slackUsersList,
		"chat.postMessage":      s.slackPostMessage,
		"conversations.history": slackHistory,
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method := strings.TrimPrefix(r.URL.Path, "/")
		if r.Method != http.MethodGet && r.Method != http.MethodPost {
			w.Header().Set("Allow", "GET, POST")
			writeJSON(w, http.StatusMethodNotAllowed, slackFail("method_not_supported"))
			return
		}
		args, err := readSlackArgs(r)
		if err != nil {
			writeJSON(w, http.StatusOK, slackFail("invalid_json"))
			return
		}
		token := slackToken(r, args)
		bare := token
		if i := strings.Index(token, "-"); i >= 0 && strings.HasPrefix(token, "xox") {
			bare = token[i+1:]
		}
		switch {
		case token == "":
			writeJSON(w, http.StatusOK, slackFail("not_authed"))
			return
		case strings.HasPrefix(bare, "invalid"):
			writeJSON(w, http.StatusOK, slackFail("invalid_auth"))
			return
		case strings.HasPrefix(bare, "ratelimited"):
			w.Header().Set("Retry-After", "1")
			writeJSON(w, http.StatusTooManyRequests, slackFail("ratelimited"))
			return
		}
		run, ok := methods[method]
		if !ok {
			writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "unknown_method", "req_method": method})
			return
		}
		st.mu.Lock()
		defer st.mu.Unlock()
		ws := st.teams[token]
		if ws == nil {
			if len(st.order) >= maxSlackWorkspaces {
				delete(st.teams, st.order[0])
				st.order = st.order[1:]
			}
			ws = s.newSlackWorkspace(token)
			st.teams[token] = ws
			st.order = append(st.order, token)
		}
		status, body := run(ws, args)
		if status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "0")
		}
		writeJSON(w, status, body)
	})
}

// slackArgs are a call's arguments: query, form or JSON body, merged.
type slackArgs map[string]any

func (a slackArgs) str(k string) string {
	switch v := a[k].(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

func readSlackArgs(r *http.Request) (slackArgs, error) {
	args := slackArgs{}
	for k, v := range r.URL.Query() {
		args[k] = v[0]
	}
	if r.Method != http.MethodPost {
		return args, nil
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		var body map[string]any
		if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<20)).Decode(&body); err != nil {
			return nil, fmt.Errorf("body: %w", err)
		}
		for k, v := range body {
			args[k] = v
		}
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return nil, fmt.Errorf("form: %w", err)
		}
		for k, v := range r.PostForm {
			args[k] = v[0]
		}
	}
	return args, nil
}

// slackToken is the bearer token, or the token argument Slack also takes.
func slackToken(r *http.Request, args slackArgs) string {
	if t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return strings.TrimSpace(t)
	}
	return args.str("token")
}

func slackFail(code string) map[string]any { return map[string]any{"ok": false, "error": code} }

func slackAuthTest(ws *slackWorkspace, _ slackArgs) (int, any) {
	return http.StatusOK, map[string]any{
		"ok": true, "url": "https://" + strings.SplitN(ws.Domain, ".", 2)[0] + ".slack.com/",
		"team": ws.Team, "user": "trawl", "team_id": ws.TeamID, "user_id": ws.BotUserID,
		"bot_id": ws.BotID, "is_enterprise_install": false,
	}
}

// slackPage reads limit (1…1000, Slack's range) and cursor, encoded as
// Slack's: base64 of "<kind>:<id of the next item>".
func slackPage(args slackArgs, kind string, max int) (limit int, after string, code string) {
	limit = 100
	if v := args.str("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1000 {
			return 0, "", "invalid_limit"
		}
		if n > 0 {
			limit = n
		}
	}
	limit = min(limit, max)
	if c := args.str("cursor"); c != "" {
		raw, err := base64.StdEncoding.DecodeString(c)
		id, ok := strings.CutPrefix(string(raw), kind+":")
		if err != nil || !ok || id == "" {
			return 0, "", "invalid_cursor"
		}
		after = id
	}
	return limit, after, ""
}

func slackCursor(kind, id string) string {
	return base64.StdEncoding.EncodeToString([]byte(kind + ":" + id))
}

func slackConversationsList(ws *slackWorkspace, args slackArgs) (int, any) {
	limit, after, code := slackPage(args, "team", slackChannelPage)
	if code != "" {
		return http.StatusOK, slackFail(code)
	}
	types := strings.Split(args.str("types"), ",")
	if args.str("types") == "" {
		types = []string{"public_channel"}
	}
	for _, t := range types {
		switch strings.TrimSpace(t) {
		case "public_channel", "private_channel", "mpim", "im":
		default:
			return http.StatusOK, slackFail("invalid_types")
		}
	}
	exclude := args.str("exclude_archived") == "true" || args.str("exclude_archived") == "1"
	var list []*slackChannel
	for _, ch := range ws.Channels {
		if ws.visible(ch, types, exclude) {
			list = append(list, ch)
		}
	}
	start := 0
	if after != "" {
		start = -1
		for i, ch := range list {
			if ch.ID == after {
				start = i
			}
		}
		if start < 0 {
			return http.StatusOK, slackFail("invalid_cursor")
		}
	}
	end := min(start+limit, len(list))
	out := make([]map[string]any, 0, end-start)
	for _, ch := range list[start:end] {
		out = append(out, map[string]any{
			"id": ch.ID, "name": ch.Name, "name_normalized": ch.Name, "is_channel": !ch.Private, "is_group": ch.Private,
			"is_im": false, "is_mpim": false, "is_private": ch.Private, "created": ch.Created,
			"is_archived": ch.Archived, "is_general": ch.Name == "general", "is_shared": false,
			"is_org_shared": false, "is_member": ch.Member, "creator": ws.Users[0].ID, "num_members": ch.Members,
			"topic":   map[string]any{"value": ch.Topic, "creator": "", "last_set": 0},
			"purpose": map[string]any{"value": ch.Purpose, "creator": ws.Users[0].ID, "last_set": ch.Created},
		})
	}
	next := ""
	if end < len(list) {
		next = slackCursor("team", list[end].ID)
	}
	return http.StatusOK, map[string]any{"ok": true, "channels": out, "response_metadata": map[string]any{"next_cursor": next}}
}

func slackUsersList(ws *slackWorkspace, args slackArgs) (int, any) {
	limit, after, code := slackPage(args, "user", slackUserPage)
	if code != "" {
		return http.StatusOK, slackFail(code)
	}
	start := 0
	if after != "" {
		start = -1
		for i, u := range ws.Users {
			if u.ID == after {
				start = i
			}
		}
		if start < 0 {
			return http.StatusOK, slackFail("invalid_cursor")
		}
	}
	end := min(start+limit, len(ws.Users))
	out := make([]map[string]any, 0, end-start)
	for _, u := range ws.Users[start:end] {
		profile := map[string]any{"real_name": u.RealName, "display_name": u.DisplayName, "title": u.Title,
			"real_name_normalized": u.RealName, "display_name_normalized": u.DisplayName, "team": ws.TeamID}
		if u.Email != "" {
			profile["email"] = u.Email
		}
		m := map[string]any{"id": u.ID, "team_id": ws.TeamID, "name": u.Name, "deleted": u.Deleted,
			"real_name": u.RealName, "tz": "America/New_York", "is_admin": false, "is_owner": false,
			"is_bot": u.Bot, "is_app_user": false, "profile": profile}
		if u.Bot {
			profile["bot_id"] = ws.BotID
		}
		out = append(out, m)
	}
	next := ""
	if end < len(ws.Users) {
		next = slackCursor("user", ws.Users[end].ID)
	}
	return http.StatusOK, map[string]any{"ok": true, "members": out, "cache_ts": 1_716_300_000,
		"response_metadata": map[string]any{"next_cursor": next}}
}

// slackPostMessage posts to a channel the bot is in; the answer's ts is
// the post's time, the sequence in its fraction keeping it unique.
func (s *Sandbox) slackPostMessage(ws *slackWorkspace, args slackArgs) (int, any) {
	ch := ws.channel(args.str("channel"))
	text := args.str("text")
	blocks, hasBlocks := args["blocks"]
	if str, ok := blocks.(string); ok { // a form post carries blocks as JSON text
		var v any
		if json.Unmarshal([]byte(str), &v) != nil {
			return http.StatusOK, slackFail("invalid_blocks_format")
		}
		blocks = v
	}
	if arr, ok := blocks.([]any); hasBlocks && (!ok || len(arr) > 50) {
		return http.StatusOK, slackFail("invalid_blocks")
	}
	switch {
	case ch == nil:
		return http.StatusOK, slackFail("channel_not_found")
	case ch.Archived:
		return http.StatusOK, slackFail("is_archived")
	case !ch.Member:
		return http.StatusOK, slackFail("not_in_channel")
	case strings.TrimSpace(text) == "" && !hasBlocks:
		return http.StatusOK, slackFail("no_text")
	case utf8.RuneCountInString(text) > 40_000:
		return http.StatusOK, slackFail("msg_too_long")
	case strings.HasPrefix(ch.Name, "flaky-") && !ws.flaky[ch.ID]:
		ws.flaky[ch.ID] = true
		return http.StatusTooManyRequests, slackFail("ratelimited")
	}
	ws.seq++
	msg := slackMessage{Type: "message", Subtype: "bot_message", Text: text, User: ws.BotUserID, BotID: ws.BotID,
		TS: fmt.Sprintf("%d.%06d", s.now().Unix(), ws.seq%1_000_000)}
	if hasBlocks {
		msg.Blocks = blocks
	}
	ch.Messages = append(ch.Messages, msg)
	if len(ch.Messages) > maxSlackMessages {
		ch.Messages = ch.Messages[len(ch.Messages)-maxSlackMessages:]
	}
	return http.StatusOK, map[string]any{"ok": true, "channel": ch.ID, "ts": msg.TS, "message": msg}
}

// slackHistory lists a channel's messages, newest first (no paging: the
// sandbox answers up to limit).
func slackHistory(ws *slackWorkspace, args slackArgs) (int, any) {
	ch := ws.channel(args.str("channel"))
	limit, _, code := slackPage(args, "next_ts", 1000)
	switch {
	case code != "":
		return http.StatusOK, slackFail(code)
	case ch == nil || strings.HasPrefix(args.str("channel"), "#"):
		return http.StatusOK, slackFail("channel_not_found")
	case !ch.Member:
		return http.StatusOK, slackFail("not_in_channel")
	}
	out := []slackMessage{}
	for i := len(ch.Messages) - 1; i >= 0 && len(out) < limit; i-- {
		out = append(out, ch.Messages[i])
	}
	return http.StatusOK, map[string]any{"ok": true, "messages": out, "has_more": len(out) < len(ch.Messages),
		"response_metadata": map[string]any{"next_cursor": ""}}
}
