package auth

import (
	"errors"
	"slices"
	"strings"
)

// Who may manage an account's keys, in one place for the CLI's peers (the
// web console) to ask. Creating and revoking keys is administration: the
// CLI does it with database access, and the bootstrap key, the only key
// a new account has, holds '*'. So only a key holding '*' itself manages
// keys; and it grants no more than it holds (full archive included).

// ErrManageKeys is the refusal of key management to a key without '*'.
var ErrManageKeys = errors.New("managing API keys needs a key holding the permission *")

// MayManageKeys reports whether the key may list, create and revoke its
// account's keys: only a key holding '*' itself.
func (k Key) MayManageKeys() bool { return slices.Contains(k.Permissions, PermAll) }

// GrantProblem says why the key may not issue a key with perms (and full
// archive access when fullArchive): the field at fault ("permissions" or
// "full_archive") and the sentence; "" and "" when it may. A key grants
// only what it holds.
func (k Key) GrantProblem(perms []Permission, fullArchive bool) (field, msg string) {
	if !k.MayManageKeys() {
		return "permissions", "The API key lacks the permission *: " + ErrManageKeys.Error() + "."
	}
	if len(perms) == 0 {
		return "permissions", "Choose at least one permission."
	}
	var lacking []string
	for _, p := range perms {
		if p != PermAll && !slices.Contains(Permissions(), p) {
			return "permissions", "Unknown permission " + string(p) + "."
		}
		if !k.Has(p) {
			lacking = append(lacking, string(p))
		}
	}
	if len(lacking) > 0 {
		return "permissions", "This key may not grant what it lacks: " + strings.Join(lacking, ", ") + "."
	}
	if fullArchive && !k.FullArchive {
		return "full_archive", "This key may not grant full-archive access: it lacks it."
	}
	return "", ""
}

// RevokeWarning is what revoking the key target with the key k must say
// first: revoking the key one is signed in with ends one's own session.
func (k Key) RevokeWarning(target Key) string {
	if target.ID == k.ID {
		return "This is the key you are signed in with: revoking it ends this session and every other use of the key at once."
	}
	return ""
}
