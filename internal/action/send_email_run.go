package action

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/netip"
	"net/smtp"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"github.com/trawlhq/trawl/internal/netguard"
)

// smtpRootCAs verifies SMTP servers' certificates; nil means the system's
// roots (tests trust their own server).
var smtpRootCAs *x509.CertPool

// smtpServer is what the smtp secret says.
type smtpServer struct {
	implicitTLS bool
	host, port  string
	user, pass  string
	from        *mail.Address
}

func parseSMTPURL(s string) (smtpServer, error) {
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" || (u.Scheme != "smtp" && u.Scheme != "smtps") {
		return smtpServer{}, errors.New("is not an smtp:// or smtps:// URL")
	}
	srv := smtpServer{implicitTLS: u.Scheme == "smtps", host: u.Hostname(), port: u.Port()}
	if srv.port == "" {
		srv.port = map[bool]string{false: "587", true: "465"}[srv.implicitTLS]
	}
	if u.User != nil {
		srv.user = u.User.Username()
		srv.pass, _ = u.User.Password()
	}
	from := u.Query().Get("from")
	if from == "" {
		from = srv.user // often the login is the address
	}
	if srv.from, err = mail.ParseAddress(from); err != nil {
		return smtpServer{}, errors.New("has no valid from= address")
	}
	return srv, nil
}

// sendEmailRun sends one message to every recipient the server accepts.
func sendEmailRun(d Deps) Executor {
	return func(ctx context.Context, call Call) (map[string]any, error) {
		in := call.Inputs
		name := inputString(in, "smtp")
		raw, err := secretValue(ctx, call, name)
		if err != nil {
			return nil, err
		}
		srv, err := parseSMTPURL(raw)
		if err != nil {
			return nil, failf(CodeInvalidInput, false, "secret %q %v", name, err)
		}
		var to []*mail.Address
		for _, s := range stringList(in["to"]) {
			a, err := mail.ParseAddress(s)
			if err != nil {
				return nil, failf(CodeInvalidInput, false, "to: %q is not an email address", s)
			}
			to = append(to, a)
		}
		if len(to) == 0 {
			return nil, failf(CodeInvalidInput, false, "to must name at least one address")
		}
		id := messageID(call.IdempotencyKey, srv.from.Address)
		msg := buildMessage(srv.from, to, inputString(in, "subject"), inputString(in, "text"), inputString(in, "html"), id, time.Now())
		accepted, err := sendMail(ctx, d, srv, to, msg)
		if err != nil {
			return nil, err
		}
		return map[string]any{"message_id": id, "accepted": accepted}, nil
	}
}

func sendMail(ctx context.Context, d Deps, srv smtpServer, to []*mail.Address, msg []byte) ([]any, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Minute)
		defer cancel()
	}
	conn, err := d.Dial(ctx, "tcp", net.JoinHostPort(srv.host, srv.port))
	if err != nil {
		return nil, dialError(err)
	}
	defer conn.Close()
	// net/smtp knows no context: the deadline and a close on cancel stand in.
	deadline, _ := ctx.Deadline()
	conn.SetDeadline(deadline)
	defer context.AfterFunc(ctx, func() { conn.Close() })()

	// The guard let us reach a normally refused address only because the
	// operator allowed its network: there, AUTH without TLS is tolerated.
	remote, _ := netip.ParseAddrPort(conn.RemoteAddr().String())
	clearOK := netguard.Blocked(remote.Addr())

	tlsConfig := &tls.Config{ServerName: srv.host, RootCAs: smtpRootCAs, MinVersion: tls.VersionTLS12}
	secure := srv.implicitTLS
	if secure {
		tc := tls.Client(conn, tlsConfig)
		if err := tc.HandshakeContext(ctx); err != nil {
			return nil, smtpError(err)
		}
		conn = tc
	}
	c, err := smtp.NewClient(conn, srv.host)
	if err != nil {
		return nil, smtpError(err)
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok && !secure {
		if err := c.StartTLS(tlsConfig); err != nil {
			return nil, smtpError(err)
		}
		secure = true
	}
	if srv.user != "" {
		if !secure && !clearOK {
			return nil, failf(CodeUpstream, false, "%s offers no TLS; the password is not sent in clear", srv.host)
		}
		_, mechs := c.Extension("AUTH")
		if err := c.Auth(&loginAuth{user: srv.user, pass: srv.pass, mechs: strings.Fields(mechs)}); err != nil {
			return nil, smtpError(err)
		}
	}
	if err := c.Mail(srv.from.Address); err != nil {
		return nil, smtpError(err)
	}
	accepted := []any{}
	var refused error
	for _, a := range to {
		if err := c.Rcpt(a.Address); err != nil {
			refused = err
			continue
		}
		accepted = append(accepted, a.Address)
	}
	if len(accepted) == 0 {
		return nil, smtpError(refused)
	}
	w, err := c.Data()
	if err != nil {
		return nil, smtpError(err)
	}
	if _, err := w.Write(msg); err != nil {
		return nil, smtpError(err)
	}
	if err := w.Close(); err != nil {
		return nil, smtpError(err)
	}
	c.Quit() // the message is accepted; a failed goodbye changes nothing
	return accepted, nil
}

// smtpError: 4xx replies are transient, 5xx permanent.
func smtpError(err error) error {
	var te *textproto.Error
	if errors.As(err, &te) {
		return failf(CodeUpstream, te.Code < 500, "SMTP %d %s", te.Code, te.Msg)
	}
	return dialError(err)
}

// loginAuth is AUTH PLAIN (or LOGIN when that is all the server offers).
// net/smtp's PlainAuth allows clear text only to localhost; sendMail has
// already decided when clear text is fine.
type loginAuth struct {
	user, pass string
	mechs      []string
	login      bool
}

func (a *loginAuth) Start(*smtp.ServerInfo) (string, []byte, error) {
	for _, m := range a.mechs {
		if strings.EqualFold(m, "PLAIN") {
			return "PLAIN", []byte("\x00" + a.user + "\x00" + a.pass), nil
		}
	}
	for _, m := range a.mechs {
		if strings.EqualFold(m, "LOGIN") {
			a.login = true
			return "LOGIN", nil, nil
		}
	}
	return "", nil, errors.New("the server offers neither AUTH PLAIN nor LOGIN")
}

func (a *loginAuth) Next(challenge []byte, more bool) ([]byte, error) {
	if !more {
		return nil, nil
	}
	if a.login {
		if strings.HasPrefix(strings.ToLower(string(challenge)), "user") {
			return []byte(a.user), nil
		}
		return []byte(a.pass), nil
	}
	return nil, errors.New("unexpected AUTH challenge")
}

// messageID derives the Message-ID from the idempotency key, so that a
// retried send gives the same id and receivers can drop the duplicate.
func messageID(key, from string) string {
	var b []byte
	if key != "" {
		sum := sha256.Sum256([]byte(key))
		b = sum[:16]
	} else {
		b = make([]byte, 16)
		rand.Read(b)
	}
	domain := from[strings.LastIndexByte(from, '@')+1:]
	return "<" + hex.EncodeToString(b) + "@" + domain + ">"
}

// buildMessage writes a MIME message: text, html, or both as
// multipart/alternative, bodies quoted-printable.
func buildMessage(from *mail.Address, to []*mail.Address, subject, text, html, id string, now time.Time) []byte {
	var b bytes.Buffer
	header := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	rcpts := make([]string, len(to))
	for i, a := range to {
		rcpts[i] = a.String()
	}
	header("From", from.String())
	header("To", strings.Join(rcpts, ", "))
	// Q-encoding also covers CR and LF, so no header can be injected.
	header("Subject", mime.QEncoding.Encode("utf-8", subject))
	header("Date", now.Format(time.RFC1123Z))
	header("Message-ID", id)
	header("MIME-Version", "1.0")
	if text != "" && html != "" {
		mw := multipart.NewWriter(&b)
		header("Content-Type", mime.FormatMediaType("multipart/alternative", map[string]string{"boundary": mw.Boundary()}))
		b.WriteString("\r\n")
		for _, p := range []struct{ typ, body string }{{"text/plain", text}, {"text/html", html}} {
			w, _ := mw.CreatePart(textproto.MIMEHeader{
				"Content-Type":              {p.typ + "; charset=utf-8"},
				"Content-Transfer-Encoding": {"quoted-printable"},
			})
			writeQP(w, p.body)
		}
		mw.Close()
		return b.Bytes()
	}
	typ, body := "text/plain", text
	if html != "" {
		typ, body = "text/html", html
	}
	header("Content-Type", typ+"; charset=utf-8")
	header("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	writeQP(&b, body)
	return b.Bytes()
}

func writeQP(w io.Writer, s string) {
	qp := quotedprintable.NewWriter(w)
	qp.Write([]byte(s))
	qp.Close()
}

// stringList reads a string-array input, as decoded JSON or as Go.
func stringList(v any) []string {
	switch v := v.(type) {
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			out = append(out, fmt.Sprint(e)) // not an address unless a string: refused later
		}
		return out
	case string:
		return []string{v}
	}
	return nil
}
