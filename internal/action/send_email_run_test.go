package action

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http/httptest"
	"net/mail"
	"net/textproto"
	"strings"
	"sync"
	"testing"
)

// smtpRecord is what the test server saw.
type smtpRecord struct {
	mu       sync.Mutex
	auth     string // decoded AUTH PLAIN
	authTLS  bool   // whether TLS was on when AUTH came
	from     string
	rcpt     []string
	data     string
	sessions int
}

type smtpOpts struct {
	startTLS    bool // offer STARTTLS
	implicitTLS bool
	reject      string // a recipient answered 550
	dataCode    int    // the answer to the end of DATA; 250 when 0
}

// testTLS borrows httptest's certificate (valid for 127.0.0.1) and makes
// the SMTP client trust it.
func testTLS(t *testing.T) *tls.Config {
	s := httptest.NewUnstartedServer(nil)
	s.StartTLS()
	t.Cleanup(s.Close)
	pool := x509.NewCertPool()
	pool.AddCert(s.Certificate())
	old := smtpRootCAs
	smtpRootCAs = pool
	t.Cleanup(func() { smtpRootCAs = old })
	return &tls.Config{Certificates: s.TLS.Certificates}
}

// startSMTP runs a tiny SMTP server on loopback that records one session
// at a time.
func startSMTP(t *testing.T, o smtpOpts) (string, *smtpRecord) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var cfg *tls.Config
	if o.startTLS || o.implicitTLS {
		cfg = testTLS(t)
	}
	if o.implicitTLS {
		l = tls.NewListener(l, cfg)
	}
	rec := &smtpRecord{}
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go serveSMTP(conn, o, cfg, rec)
		}
	}()
	return l.Addr().String(), rec
}

func serveSMTP(conn net.Conn, o smtpOpts, cfg *tls.Config, rec *smtpRecord) {
	defer conn.Close()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.sessions++
	secure := o.implicitTLS
	tp := textproto.NewConn(conn)
	tp.PrintfLine("220 test ESMTP")
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO":
			tp.PrintfLine("250-test")
			if o.startTLS && !secure {
				tp.PrintfLine("250-STARTTLS")
			}
			tp.PrintfLine("250 AUTH PLAIN LOGIN")
		case "STARTTLS":
			tp.PrintfLine("220 go ahead")
			tc := tls.Server(conn, cfg)
			if tc.Handshake() != nil {
				return
			}
			conn, secure = tc, true
			tp = textproto.NewConn(tc)
		case "AUTH":
			_, resp, _ := strings.Cut(arg, " ")
			raw, _ := base64.StdEncoding.DecodeString(resp)
			rec.auth, rec.authTLS = string(raw), secure
			tp.PrintfLine("235 ok")
		case "MAIL":
			rec.from = arg
			tp.PrintfLine("250 ok")
		case "RCPT":
			if o.reject != "" && strings.Contains(arg, o.reject) {
				tp.PrintfLine("550 no such user")
				continue
			}
			rec.rcpt = append(rec.rcpt, arg)
			tp.PrintfLine("250 ok")
		case "DATA":
			tp.PrintfLine("354 go ahead")
			data, _ := tp.ReadDotBytes()
			rec.data = string(data)
			if o.dataCode != 0 {
				tp.PrintfLine("%d not now", o.dataCode)
				continue
			}
			tp.PrintfLine("250 queued")
		case "QUIT":
			tp.PrintfLine("221 bye")
			return
		default:
			tp.PrintfLine("502 what")
		}
	}
}

func runEmail(t *testing.T, d Deps, smtpURL string, in map[string]any) (map[string]any, error) {
	t.Helper()
	in["smtp"] = "SMTP"
	return Executors(d)[KindSendEmail](context.Background(), Call{
		Inputs: in, IdempotencyKey: "exec-9/step-1",
		Secret: secretsOf(map[string]string{"SMTP": smtpURL}),
	})
}

func TestSendEmailMultipart(t *testing.T) {
	addr, rec := startSMTP(t, smtpOpts{})
	out, err := runEmail(t, loopbackDeps(), "smtp://robot%40example.com:pa55@"+addr+"?from=Trawl+%3Crobot%40example.com%3E", map[string]any{
		"to":      []any{"a@example.org", "Bé <b@example.org>"},
		"subject": "Résumé: new lead\r\nBcc: evil@example.net",
		"text":    "Hello\nthere.", "html": "<p>Hello</p>",
	})
	if err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	// Loopback is allowed explicitly, so AUTH in clear is tolerated there.
	if rec.auth != "\x00robot@example.com\x00pa55" || rec.from != "FROM:<robot@example.com>" || len(rec.rcpt) != 2 {
		t.Errorf("session %+v", rec)
	}
	if acc := out["accepted"].([]any); len(acc) != 2 || acc[0] != "a@example.org" || acc[1] != "b@example.org" {
		t.Errorf("accepted %v", acc)
	}
	m, err := mail.ReadMessage(strings.NewReader(rec.data))
	if err != nil {
		t.Fatal(err)
	}
	subject, _ := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if subject != "Résumé: new lead\r\nBcc: evil@example.net" || m.Header.Get("Bcc") != "" {
		t.Errorf("subject %q, headers %v", subject, m.Header)
	}
	if m.Header.Get("Message-ID") != out["message_id"] || !strings.HasSuffix(out["message_id"].(string), "@example.com>") {
		t.Errorf("message id %q vs %q", m.Header.Get("Message-ID"), out["message_id"])
	}
	if _, err := m.Header.Date(); err != nil {
		t.Error(err)
	}
	typ, params, _ := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if typ != "multipart/alternative" {
		t.Fatalf("content type %q", typ)
	}
	mr := multipart.NewReader(m.Body, params["boundary"])
	for _, want := range []struct{ typ, body string }{{"text/plain", "Hello\nthere."}, {"text/html", "<p>Hello</p>"}} {
		p, err := mr.NextPart() // decodes quoted-printable
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(p)
		if !strings.HasPrefix(p.Header.Get("Content-Type"), want.typ) || string(body) != want.body {
			t.Errorf("part %v %q", p.Header, body)
		}
	}
	// A retry of the same step sends the same Message-ID.
	if again := messageID("exec-9/step-1", "robot@example.com"); again != out["message_id"] {
		t.Errorf("message id %q then %q", out["message_id"], again)
	}
}

func TestSendEmailTLS(t *testing.T) {
	for _, o := range []smtpOpts{{startTLS: true}, {implicitTLS: true}} {
		addr, rec := startSMTP(t, o)
		scheme := map[bool]string{false: "smtp", true: "smtps"}[o.implicitTLS]
		_, err := runEmail(t, loopbackDeps(), scheme+"://u:p@"+addr+"?from=robot@example.com",
			map[string]any{"to": []any{"a@example.org"}, "subject": "s", "text": "plain only"})
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		rec.mu.Lock()
		if !rec.authTLS || !strings.Contains(rec.data, "Content-Type: text/plain; charset=utf-8") {
			t.Errorf("%+v: auth over TLS %v, data %q", o, rec.authTLS, rec.data)
		}
		rec.mu.Unlock()
	}
}

func TestSendEmailFailures(t *testing.T) {
	in := func() map[string]any {
		return map[string]any{"to": []any{"a@example.org", "gone@example.org"}, "subject": "s", "html": "<b>x</b>"}
	}
	// One recipient refused: the others still get it.
	addr, _ := startSMTP(t, smtpOpts{reject: "gone@"})
	out, err := runEmail(t, loopbackDeps(), "smtp://"+addr+"?from=robot@example.com", in())
	if err != nil || len(out["accepted"].([]any)) != 1 {
		t.Fatalf("got %v, %v", out, err)
	}
	// Every recipient refused: permanent.
	_, err = runEmail(t, loopbackDeps(), "smtp://"+addr+"?from=robot@example.com",
		map[string]any{"to": []any{"gone@example.org"}, "subject": "s", "text": "x"})
	wantError(t, err, CodeUpstream, false)
	// 4xx at the end of DATA: transient.
	addr, _ = startSMTP(t, smtpOpts{dataCode: 451})
	_, err = runEmail(t, loopbackDeps(), "smtp://"+addr+"?from=robot@example.com", in())
	wantError(t, err, CodeUpstream, true)
	// The default guard refuses loopback.
	addr, rec := startSMTP(t, smtpOpts{})
	_, err = runEmail(t, Deps{}, "smtp://u:pa55word@"+addr+"?from=robot@example.com", in())
	if e := wantError(t, err, CodeBlocked, false); strings.Contains(e.Message, "pa55word") {
		t.Errorf("the password leaked: %q", e.Message)
	}
	rec.mu.Lock()
	if rec.sessions != 0 {
		t.Error("the server was reached")
	}
	rec.mu.Unlock()
	// A bad secret is named, its value is not.
	_, err = runEmail(t, loopbackDeps(), "smtp://u:pa55word@"+addr, in())
	if e := wantError(t, err, CodeInvalidInput, false); strings.Contains(e.Message, "pa55word") {
		t.Errorf("the password leaked: %q", e.Message)
	}
}

func TestLoginAuth(t *testing.T) {
	a := &loginAuth{user: "u", pass: "p", mechs: []string{"LOGIN"}}
	if mech, _, err := a.Start(nil); mech != "LOGIN" || err != nil {
		t.Fatalf("%s %v", mech, err)
	}
	for challenge, want := range map[string]string{"Username:": "u", "Password:": "p"} {
		if got, _ := a.Next([]byte(challenge), true); string(got) != want {
			t.Errorf("%s: %q", challenge, got)
		}
	}
	if _, _, err := (&loginAuth{mechs: []string{"CRAM-MD5"}}).Start(nil); err == nil {
		t.Error("no common mechanism accepted")
	}
}
