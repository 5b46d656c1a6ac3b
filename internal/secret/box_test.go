package secret

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

func TestSealOpen(t *testing.T) {
	b, err := NewBox(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	sealed := b.Seal([]byte("xoxb-123"), "acct/SLACK")
	if bytes.Contains(sealed, []byte("xoxb")) {
		t.Fatal("plaintext visible in sealed value")
	}
	got, err := b.Open(sealed, "acct/SLACK")
	if err != nil || string(got) != "xoxb-123" {
		t.Fatalf("open: %q %v", got, err)
	}
	if _, err := b.Open(sealed, "other/SLACK"); err != ErrCorrupt {
		t.Fatalf("opened under another context: %v", err)
	}
	other, _ := NewBox(bytes.Repeat([]byte{8}, 32))
	if _, err := other.Open(sealed, "acct/SLACK"); err != ErrCorrupt {
		t.Fatalf("opened with another key: %v", err)
	}
}

func TestLoadOrCreateKey(t *testing.T) {
	dir := t.TempDir()
	k1, err := LoadOrCreateKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, KeyFile))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode: %v %v", st.Mode(), err)
	}
	k2, err := LoadOrCreateKey(dir)
	if err != nil || !bytes.Equal(k1, k2) {
		t.Fatal("second load gave another key")
	}
}

func TestParseKey(t *testing.T) {
	raw := bytes.Repeat([]byte{1, 2}, 16)
	if k, err := ParseKey(hex.EncodeToString(raw)); err != nil || !bytes.Equal(k, raw) {
		t.Fatalf("hex: %v", err)
	}
	if _, err := ParseKey("short"); err == nil {
		t.Fatal("short key accepted")
	}
}

func FuzzParseKey(f *testing.F) {
	f.Add("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
	f.Add("zz")
	f.Fuzz(func(t *testing.T, s string) {
		if k, err := ParseKey(s); err == nil && len(k) != 32 {
			t.Fatalf("accepted a %d-byte key", len(k))
		}
	})
}

func TestCheckTellsKeysApart(t *testing.T) {
	b, _ := NewBox(bytes.Repeat([]byte{7}, 32))
	other, _ := NewBox(bytes.Repeat([]byte{8}, 32))
	check := b.Check()
	if err := b.Verify(check); err != nil {
		t.Fatalf("the key that made the check: %v", err)
	}
	for _, c := range []string{check, "not base64!", ""} {
		if err := other.Verify(c); err != ErrOtherKey {
			t.Errorf("another key verified %q: %v", c, err)
		}
	}
}
