package console

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/store"
)

// maxKeyName bounds a key's name (its label in listings), in characters.
const maxKeyName = 100

// keyListed is one key of the account's list.
type keyListed struct {
	auth.Key
	Status string
	Self   bool // the key this session is signed in with
}

// permChoice is one permission's checkbox.
type permChoice struct {
	Value   string
	ID      string
	Checked bool
}

type keysData struct {
	Sub settingsSub
	// Denied is why this key may not manage keys; then only Self shows.
	Denied string
	Self   auth.Key
	Keys   []keyListed
	// The create form: its choices, what was typed, the problems.
	Perms          []permChoice
	MayFullArchive bool
	FullArchive    bool
	Name, Expires  string
	Problem        apiProblem
}

// keyForm is the create form's inputs.
type keyForm struct {
	perms       []auth.Permission
	fullArchive bool
	name        string
	expires     string
}

func permID(p string) string {
	if p == string(auth.PermAll) {
		return "perm-all"
	}
	return "perm-" + strings.ReplaceAll(p, ":", "-")
}

// keysPage renders the keys page with the form as f left it.
func (c *Console) keysPage(w http.ResponseWriter, r *http.Request, s session, status int, f keyForm, p apiProblem) {
	d := keysData{Sub: subKeys, Self: s.p.Key, Denied: mayManageKeys(s.p.Key), MayFullArchive: s.p.Key.FullArchive,
		FullArchive: f.fullArchive, Name: f.name, Expires: f.expires, Problem: p.Place("permissions", "full_archive", "name", "expires")}
	if d.Denied == "" {
		keys, err := c.store.Keys(r.Context(), s.p.Account.ID)
		if err != nil {
			c.serverError(w, r, err)
			return
		}
		now := c.now()
		for _, k := range keys {
			d.Keys = append(d.Keys, keyListed{Key: k, Status: k.Status(now), Self: k.ID == s.p.Key.ID})
		}
		for _, perm := range append([]auth.Permission{auth.PermAll}, auth.Permissions()...) {
			d.Perms = append(d.Perms, permChoice{Value: string(perm), ID: permID(string(perm)), Checked: slices.Contains(f.perms, perm)})
		}
	}
	v := s.view("API keys", "settings")
	v.Data = d
	c.render(w, status, "settings_keys", v)
}

// settingsKeys lists the account's keys with the create form.
func (c *Console) settingsKeys(w http.ResponseWriter, r *http.Request, s session) {
	c.keysPage(w, r, s, http.StatusOK, keyForm{}, apiProblem{})
}

// formProblem is a form's refusal by the console itself, shaped as the
// API's so the same templates place it.
func formProblem(status int, fields ...fieldProblem) apiProblem {
	return apiProblem{Status: status, Code: "VALIDATION_ERROR", Message: "The key was not created: fix the fields below.", Fields: fields}
}

type keyCreatedData struct {
	Sub    settingsSub
	Key    auth.Key
	Secret string
}

// createKey issues a key with the permissions chosen, as `trawl keys
// create` does, and shows its secret on this answer only: never stored,
// never in a cookie, never cached.
func (c *Console) createKey(w http.ResponseWriter, r *http.Request, s session) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	f := keyForm{fullArchive: r.PostForm.Get("full_archive") != "", name: strings.TrimSpace(r.PostForm.Get("name")),
		expires: strings.TrimSpace(r.PostForm.Get("expires"))}
	for _, p := range r.PostForm["permissions"] {
		if perm := auth.Permission(p); !slices.Contains(f.perms, perm) {
			f.perms = append(f.perms, perm)
		}
	}
	if msg := mayManageKeys(s.p.Key); msg != "" {
		c.message(w, r, http.StatusForbidden, "Not allowed", msg)
		return
	}
	var problems []fieldProblem
	perms := f.perms
	if slices.Contains(perms, auth.PermAll) {
		perms = []auth.Permission{auth.PermAll} // '*' holds every other
	}
	if field, msg := s.p.Key.GrantProblem(perms, f.fullArchive); msg != "" {
		problems = append(problems, fieldProblem{Field: "body." + field, Message: msg})
	}
	if utf8.RuneCountInString(f.name) > maxKeyName {
		problems = append(problems, fieldProblem{Field: "body.name", Message: "must be at most 100 characters"})
	} else if strings.ContainsFunc(f.name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		problems = append(problems, fieldProblem{Field: "body.name", Message: "must not contain control characters"})
	}
	var expires *time.Time
	if f.expires != "" {
		t, err := time.Parse(time.DateOnly, f.expires)
		switch {
		case err != nil:
			problems = append(problems, fieldProblem{Field: "body.expires", Message: "must be a date (2027-01-31)"})
		case !t.After(c.now()):
			problems = append(problems, fieldProblem{Field: "body.expires", Message: "must be a day after today: the key expires at its first instant (UTC)"})
		default:
			expires = &t
		}
	}
	if len(problems) > 0 {
		c.keysPage(w, r, s, http.StatusBadRequest, f, formProblem(http.StatusBadRequest, problems...))
		return
	}
	k := auth.Key{AccountID: s.p.Account.ID, Permissions: perms, FullArchive: f.fullArchive, Label: f.name, ExpiresAt: expires}
	secret, err := c.store.CreateKey(r.Context(), &k)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	c.log.Info("console: key created", "key", k.Prefix, "by", s.p.Key.Prefix, "account_id", k.AccountID)
	v := s.view("Key created", "settings")
	v.Data = keyCreatedData{Sub: subKeys, Key: k, Secret: secret}
	// render sends Cache-Control: no-store: the secret is on this answer only.
	c.render(w, http.StatusCreated, "settings_key_created", v)
}

// accountKey is the account's key of the path's id, or a page that says
// why not (no permission, no such key: another account's is not found).
func (c *Console) accountKey(w http.ResponseWriter, r *http.Request, s session) (auth.Key, bool) {
	if msg := mayManageKeys(s.p.Key); msg != "" {
		c.message(w, r, http.StatusForbidden, "Not allowed", msg)
		return auth.Key{}, false
	}
	id := r.PathValue("id")
	keys, err := c.store.Keys(r.Context(), s.p.Account.ID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		c.serverError(w, r, err)
		return auth.Key{}, false
	}
	for _, k := range keys {
		if k.ID == id {
			if k.RevokedAt != nil {
				c.message(w, r, http.StatusConflict, "Revoked already", "Key "+k.Prefix+" was revoked already.")
				return auth.Key{}, false
			}
			return k, true
		}
	}
	c.message(w, r, http.StatusNotFound, "Not found", "Key "+id+" not found.")
	return auth.Key{}, false
}

// confirmRevokeKey asks before revoking, with the warning of revoking
// one's own key.
func (c *Console) confirmRevokeKey(w http.ResponseWriter, r *http.Request, s session) {
	k, ok := c.accountKey(w, r, s)
	if !ok {
		return
	}
	c.confirm(w, s, "Revoke key", confirmData{Sub: subKeys, Heading: "Revoke key " + k.Prefix + "?",
		Message: "The key stops working at once, in the API and in the console: every session signed in with it ends. This cannot be undone.",
		Warning: s.p.Key.RevokeWarning(k), Action: "/settings/keys/" + k.ID + "/revoke", Button: "Revoke " + k.Prefix, Back: "/settings/keys"})
}

// revokeKey revokes the key; its sessions end with it (the session read
// joins the key and skips revoked ones). Revoking one's own key signs out.
func (c *Console) revokeKey(w http.ResponseWriter, r *http.Request, s session) {
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	k, ok := c.accountKey(w, r, s)
	if !ok {
		return
	}
	if err := c.store.RevokeKey(r.Context(), k.ID); err != nil {
		c.serverError(w, r, err)
		return
	}
	c.log.Info("console: key revoked", "key", k.Prefix, "by", s.p.Key.Prefix, "account_id", k.AccountID)
	if k.ID == s.p.Key.ID {
		c.setCookie(w, r, sessionCookie, "", -1)
		http.Redirect(w, r, "/signin", http.StatusSeeOther)
		return
	}
	c.done(w, r, "/settings/keys", "Key "+k.Prefix+" revoked: it no longer works, and its console sessions ended.")
}
