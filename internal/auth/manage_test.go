package auth

import "testing"

func TestKeyManagement(t *testing.T) {
	admin := Key{ID: "a", Permissions: []Permission{PermAll}}
	archive := Key{ID: "b", Permissions: []Permission{PermAll}, FullArchive: true}
	limited := Key{ID: "c", Permissions: []Permission{PermSearchesRead, PermSearchesWrite}}

	if !admin.MayManageKeys() || limited.MayManageKeys() {
		t.Errorf("MayManageKeys: '*' %v, limited %v; want true, false", admin.MayManageKeys(), limited.MayManageKeys())
	}
	cases := []struct {
		name    string
		k       Key
		perms   []Permission
		archive bool
		field   string // "" when it may
	}{
		{"admin grants one permission", admin, []Permission{PermSearchesRead}, false, ""},
		{"admin grants '*'", admin, []Permission{PermAll}, false, ""},
		{"no permission", admin, nil, false, "permissions"},
		{"unknown permission", admin, []Permission{"searches:delete"}, false, "permissions"},
		{"full archive it lacks", admin, []Permission{PermSearchesRead}, true, "full_archive"},
		{"full archive it holds", archive, []Permission{PermSearchesRead}, true, ""},
		// A key without '*' manages no keys, even within what it holds.
		{"limited key, within its own", limited, []Permission{PermSearchesRead}, false, "permissions"},
	}
	for _, c := range cases {
		field, msg := c.k.GrantProblem(c.perms, c.archive)
		if field != c.field || (field == "") != (msg == "") {
			t.Errorf("%s: GrantProblem = %q, %q; want field %q", c.name, field, msg, c.field)
		}
	}
	if w := admin.RevokeWarning(admin); w == "" {
		t.Error("revoking one's own key gives no warning")
	}
	if w := admin.RevokeWarning(limited); w != "" {
		t.Errorf("revoking another key warns %q", w)
	}
}
