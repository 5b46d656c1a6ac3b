package httpapi

import (
	"context"
	"errors"
	"net/http"
	"regexp"

	"github.com/danielgtaylor/huma/v2"

	"github.com/trawlhq/trawl/internal/secret"
	"github.com/trawlhq/trawl/internal/store"
)

// secretNameRE is the spelling of secret names: what workflow inputs
// refer to, like an environment variable.
var secretNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)

// maxSecretBytes bounds a secret's value.
const maxSecretBytes = 64 << 10

// secretOut describes a secret; the value is write-only.
type secretOut struct {
	Name    string `json:"name"`
	Created string `json:"created"`
	Updated string `json:"updated"`
}

func toSecret(sc store.Secret) secretOut {
	return secretOut{Name: sc.Name, Created: formatTime(sc.CreatedAt), Updated: formatTime(sc.UpdatedAt)}
}

type putSecretInput struct {
	Body struct {
		Name  string `json:"name" doc:"A letter, then letters, digits or _ (at most 64): what workflow inputs refer to."`
		Value string `json:"value" doc:"The secret (a token, a webhook URL, an SMTP URL), at most 64 KiB. Never shown again."`
	}
}

func (in *putSecretInput) Resolve(ctx huma.Context) []error { return checkInput(ctx, in) }

func (in *putSecretInput) check(_ huma.Context, _ *Server, p *problems) error {
	if !secretNameRE.MatchString(in.Body.Name) {
		p.add("body.name", "must be a letter followed by at most 63 letters, digits or _")
	}
	if n := len(in.Body.Value); n == 0 || n > maxSecretBytes {
		// The value itself is never echoed, not even in an error.
		p.add("body.value", "must be 1-%d bytes", maxSecretBytes)
	}
	return nil
}

func (s *Server) handlePutSecret(ctx context.Context, in *putSecretInput) (*createdReply[secretOut], error) {
	acct := principalFrom(ctx).Account.ID
	sealed := s.secrets.Seal([]byte(in.Body.Value), secret.AccountContext(acct, in.Body.Name))
	sc, created, err := s.store.PutSecret(ctx, acct, in.Body.Name, sealed)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	out := createdWith("Secret saved", toSecret(sc))
	if !created {
		out.Status = http.StatusOK
	}
	return out, nil
}

type secretList struct {
	Items []secretOut `json:"items"`
	Total int         `json:"total"`
}

func (s *Server) handleListSecrets(ctx context.Context, _ *struct{}) (*Reply[secretList], error) {
	scs, err := s.store.ListSecrets(ctx, principalFrom(ctx).Account.ID)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	out := secretList{Items: make([]secretOut, 0, len(scs)), Total: len(scs)}
	for _, sc := range scs {
		out.Items = append(out.Items, toSecret(sc))
	}
	return reply("Secrets", out), nil
}

type secretNameInput struct {
	Name string `path:"name" doc:"Secret name."`
}

type secretDeleted struct {
	Name    string `json:"name"`
	Deleted bool   `json:"deleted"`
}

func (s *Server) handleDeleteSecret(ctx context.Context, in *secretNameInput) (*Reply[secretDeleted], error) {
	err := s.store.DeleteSecret(ctx, principalFrom(ctx).Account.ID, in.Name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("Secret " + in.Name)
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return reply("Secret deleted", secretDeleted{Name: in.Name, Deleted: true}), nil
}
