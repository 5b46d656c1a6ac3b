// Package secret keeps account secrets (tokens, webhook URLs, SMTP
// passwords) encrypted at rest with AES-256-GCM under one service key.
package secret

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// KeyFile is where a generated key is kept, inside the data directory.
const KeyFile = "secret-key"

// Box seals and opens values. The context (an account id and a name, say)
// is bound to the ciphertext, so a sealed value cannot be moved to
// another row.
type Box struct{ aead cipher.AEAD }

// NewBox makes a box from a 32-byte key.
func NewBox(key []byte) (*Box, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("secret: key must be 32 bytes, got %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secret: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secret: %w", err)
	}
	return &Box{aead: aead}, nil
}

// Seal encrypts a value for a context: nonce followed by ciphertext.
func (b *Box) Seal(plain []byte, context string) []byte {
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plain)+b.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		panic(fmt.Sprintf("secret: no randomness: %v", err)) // crypto/rand never fails on supported systems
	}
	return b.aead.Seal(nonce, nonce, plain, []byte(context))
}

// ErrCorrupt means a sealed value does not open with this key and context.
var ErrCorrupt = errors.New("secret: value does not open with this key (was TRAWL_SECRET_KEY changed?)")

// Open decrypts what Seal made for the same context.
func (b *Box) Open(sealed []byte, context string) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n {
		return nil, ErrCorrupt
	}
	plain, err := b.aead.Open(nil, sealed[:n], sealed[n:], []byte(context))
	if err != nil {
		return nil, ErrCorrupt
	}
	return plain, nil
}

// ParseKey reads a key written as base64 (standard or URL alphabet) of 32
// bytes, or as 64 hex digits.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil && len(k) == 32 {
			return k, nil
		}
	}
	if len(s) == 64 {
		k := make([]byte, 32)
		if _, err := fmt.Sscanf(s, "%x", &k); err == nil && len(k) == 32 {
			return k, nil
		}
	}
	return nil, errors.New("must be 32 bytes written as base64 (openssl rand -base64 32) or 64 hex digits")
}

// LoadOrCreateKey returns the key kept in dir, generating it (mode 0600)
// on first use.
func LoadOrCreateKey(dir string) ([]byte, error) {
	path := filepath.Join(dir, KeyFile)
	raw, err := os.ReadFile(path)
	if err == nil {
		k, err := ParseKey(string(raw))
		if err != nil {
			return nil, fmt.Errorf("secret: %s: %w", path, err)
		}
		return k, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("secret: read key: %w", err)
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("secret: generate key: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("secret: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		// Another process made it first: use theirs.
		return LoadOrCreateKey(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("secret: write key: %w", err)
	}
	defer f.Close()
	if _, err := f.WriteString(base64.StdEncoding.EncodeToString(k) + "\n"); err != nil {
		return nil, fmt.Errorf("secret: write key: %w", err)
	}
	return k, f.Close()
}

// checkContext binds Check's value to its purpose.
const checkContext = "trawl/secret-key-check"

// ErrOtherKey means the database's secrets were sealed with another key.
var ErrOtherKey = errors.New("secret: this is not the key the database's secrets are sealed with: " +
	"every process sharing a database needs the same TRAWL_SECRET_KEY (or the secret-key file of the data directory that first used it)")

// Check returns a value that opens with this box's key only. Kept once per
// database (Store.SettingOnce), it tells a process started with another
// key apart before it seals or fails to open anything.
func (b *Box) Check() string {
	return base64.StdEncoding.EncodeToString(b.Seal([]byte("trawl"), checkContext))
}

// Verify returns ErrOtherKey unless check was made by Check with this
// box's key.
func (b *Box) Verify(check string) error {
	sealed, err := base64.StdEncoding.DecodeString(check)
	if err == nil {
		_, err = b.Open(sealed, checkContext)
	}
	if err != nil {
		return ErrOtherKey
	}
	return nil
}

// AccountContext binds an account secret's sealed value to its account and name.
func AccountContext(accountID, name string) string { return "account/" + accountID + "/secret/" + name }

// WebhookContext binds a workflow's webhook signing secret to the workflow.
func WebhookContext(workflowID string) string { return "workflow/" + workflowID + "/webhook" }

// SearchWebhookContext is the sealing context of the signing secrets of an
// account's saved-search webhooks.
func SearchWebhookContext(accountID string) string { return "account/" + accountID + "/search-webhook" }

// IntegrationContext binds the sealed credentials of an account's
// connection to a service (internal/integration) to the account and type.
func IntegrationContext(accountID, typ string) string {
	return "account/" + accountID + "/integration/" + typ
}
