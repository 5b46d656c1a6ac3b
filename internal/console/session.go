package console

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/auth"
	"github.com/trawlhq/trawl/internal/store"
)

const (
	// sessionCookie holds the session's token; the table holds its SHA-256.
	sessionCookie = "trawl_session"
	// signinCookie holds the sign-in form's CSRF token (double submit):
	// before a session there is no server-side row to keep it in.
	signinCookie = "trawl_signin_csrf"
	// tokenBytes is the entropy of every token (session and CSRF).
	tokenBytes = 32
	// maxFormBytes bounds a form body: the API's own body limit, so a
	// workflow definition typed into the editor fits as it would in curl.
	maxFormBytes = 1 << 20
)

// newToken is a random token, base64url without padding.
func newToken() string {
	b := make([]byte, tokenBytes)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// validToken reports whether s has the shape of a token newToken makes.
func validToken(s string) bool {
	if len(s) != base64.RawURLEncoding.EncodedLen(tokenBytes) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil
}

// sessionID is the stored id of a session token: its SHA-256 in hex.
func sessionID(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// sameToken compares a submitted token with the expected one in constant
// time; an empty expected token matches nothing.
func sameToken(got, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// secure reports whether the request reached us over TLS, directly or
// through a proxy that says so.
func secure(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

func (c *Console) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: secure(r)})
}

// session is a signed-in request's session and principal.
type session struct {
	store.ConsoleSession
	p     auth.Principal
	flash string // what the last form did (done), shown once
}

func (s session) view(title, nav string) view {
	return view{Title: title, Nav: nav, SignedIn: true, CSRF: s.CSRF, KeyPrefix: s.p.Key.Prefix, Account: s.p.Account.Name, Flash: s.flash}
}

// flashCookie carries a form's outcome across its redirect (done).
const flashCookie = "trawl_flash"

// done ends a form that worked: a 303 to the page to show next, which
// says flash once (a notice above its content).
func (c *Console) done(w http.ResponseWriter, r *http.Request, to, flash string) {
	if flash != "" {
		c.setCookie(w, r, flashCookie, url.QueryEscape(flash), 60)
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// doneShowingSecret is done, unless the write answered a webhook signing
// secret, which the API shows once: then this answer shows it (201,
// no-store), never a cookie or a redirect, with a link on to next.
func (c *Console) doneShowingSecret(w http.ResponseWriter, r *http.Request, s session, nav, next, flash string, secret *string) {
	if secret == nil {
		c.done(w, r, next, flash)
		return
	}
	v := s.view("Webhook signing secret", nav)
	v.Data = map[string]string{"Heading": "Webhook signing secret", "Flash": flash, "Secret": *secret, "Next": next}
	c.render(w, http.StatusCreated, "secret_once", v)
}

// takeFlash reads and clears the flash cookie.
func (c *Console) takeFlash(w http.ResponseWriter, r *http.Request) string {
	ck, err := r.Cookie(flashCookie)
	if err != nil {
		return ""
	}
	c.setCookie(w, r, flashCookie, "", -1)
	msg, err := url.QueryUnescape(ck.Value)
	if err != nil || len(msg) > 500 {
		return ""
	}
	return msg
}

type sessionKey struct{}

func sessionFrom(ctx context.Context) (session, bool) {
	s, ok := ctx.Value(sessionKey{}).(session)
	return s, ok
}

var errNoSession = errors.New("console: no session")

// session finds the request's session: its cookie's token, a stored
// session that has not expired, a key that is neither revoked nor expired.
// One indexed read, on every request.
func (c *Console) session(r *http.Request) (session, error) {
	ck, err := r.Cookie(sessionCookie)
	if err != nil || !validToken(ck.Value) {
		return session{}, errNoSession
	}
	now := c.now()
	cs, p, err := c.store.ConsoleSession(r.Context(), sessionID(ck.Value), now)
	if errors.Is(err, store.ErrNotFound) {
		return session{}, errNoSession
	}
	if err != nil {
		return session{}, err
	}
	if p.Key.Expired(now) {
		return session{}, errNoSession
	}
	return session{ConsoleSession: cs, p: p}, nil
}

// signedIn runs h with the request's session; without one, a GET goes to
// the sign-in page and anything else is refused.
func (c *Console) signedIn(h func(http.ResponseWriter, *http.Request, session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, err := c.session(r)
		if errors.Is(err, errNoSession) {
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				http.Redirect(w, r, "/signin", http.StatusSeeOther)
				return
			}
			c.message(w, r, http.StatusForbidden, "Signed out", "Sign in again: the session ended.")
			return
		}
		if err != nil {
			c.serverError(w, r, err)
			return
		}
		if r.Method == http.MethodGet && r.Header.Get("HX-Request") == "" {
			s.flash = c.takeFlash(w, r)
		}
		h(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, s)), s)
	}
}

// postForm parses a POST's form and checks its csrf field against want;
// false when it answered (403) already.
func (c *Console) postForm(w http.ResponseWriter, r *http.Request, want func() string) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil || !sameToken(r.PostForm.Get("csrf"), want()) {
		c.message(w, r, http.StatusForbidden, "Refused", "The form's security token is missing or stale. Reload the page and submit it again.")
		return false
	}
	return true
}

type signinData struct{ Error string }

// getSignIn shows the sign-in form with a fresh pre-session CSRF token,
// or goes to the overview when signed in already.
func (c *Console) getSignIn(w http.ResponseWriter, r *http.Request) {
	if _, err := c.session(r); err == nil {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	c.signinForm(w, r, http.StatusOK, "")
}

func (c *Console) signinForm(w http.ResponseWriter, r *http.Request, status int, msg string) {
	token := newToken()
	c.setCookie(w, r, signinCookie, token, 3600)
	c.render(w, status, "signin", view{Title: "Sign in", CSRF: token, Data: signinData{Error: msg}})
}

// postSignIn checks the key as the API's auth middleware does and opens a
// session for it.
func (c *Console) postSignIn(w http.ResponseWriter, r *http.Request) {
	if !c.postForm(w, r, func() string {
		ck, err := r.Cookie(signinCookie)
		if err != nil || !validToken(ck.Value) {
			return ""
		}
		return ck.Value
	}) {
		return
	}
	secret := strings.TrimSpace(r.PostForm.Get("key"))
	if secret == "" {
		c.signinForm(w, r, http.StatusUnauthorized, auth.MessageKeyRequired)
		return
	}
	now := c.now()
	p, err := c.store.Authenticate(r.Context(), auth.HashSecret(secret))
	if errors.Is(err, store.ErrNotFound) {
		c.signinForm(w, r, http.StatusUnauthorized, auth.MessageKeyUnknown)
		return
	}
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if p.Key.Expired(now) {
		c.signinForm(w, r, http.StatusUnauthorized, auth.MessageKeyExpired(*p.Key.ExpiresAt))
		return
	}
	token := newToken()
	ttl := c.sessionTTL()
	expires := now.Add(ttl)
	if p.Key.ExpiresAt != nil && p.Key.ExpiresAt.Before(expires) {
		expires = *p.Key.ExpiresAt
	}
	cs := store.ConsoleSession{ID: sessionID(token), KeyID: p.Key.ID, AccountID: p.Account.ID, CSRF: newToken(), CreatedAt: now, ExpiresAt: expires}
	if err := c.store.CreateConsoleSession(r.Context(), cs); err != nil {
		c.serverError(w, r, err)
		return
	}
	if err := c.store.TouchKey(r.Context(), p.Key.ID); err != nil {
		c.log.Warn("console: record key use", "error", err, "key", p.Key.Prefix)
	}
	c.log.Info("console sign-in", "key", p.Key.Prefix, "account_id", p.Account.ID)
	c.setCookie(w, r, signinCookie, "", -1)
	c.setCookie(w, r, sessionCookie, token, int(expires.Sub(now).Seconds()))
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (c *Console) sessionTTL() time.Duration {
	if c.cfg != nil && c.cfg.ConsoleSessionTTL > 0 {
		return c.cfg.ConsoleSessionTTL
	}
	return defaultSessionTTL
}

// postSignOut deletes the session and its cookie.
func (c *Console) postSignOut(w http.ResponseWriter, r *http.Request) {
	s, err := c.session(r)
	if errors.Is(err, errNoSession) {
		c.setCookie(w, r, sessionCookie, "", -1)
		http.Redirect(w, r, "/signin", http.StatusSeeOther)
		return
	}
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	r = r.WithContext(context.WithValue(r.Context(), sessionKey{}, s))
	if !c.postForm(w, r, func() string { return s.CSRF }) {
		return
	}
	if err := c.store.DeleteConsoleSession(r.Context(), s.ID); err != nil {
		c.serverError(w, r, err)
		return
	}
	c.setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, "/signin", http.StatusSeeOther)
}

// defaultSessionTTL is TRAWL_CONSOLE_SESSION_TTL's default.
const defaultSessionTTL = 12 * time.Hour
