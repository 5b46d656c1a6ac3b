package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// layers is the import picture of docs/architecture.md, bottom first: a
// package may import only packages of lower layers. A new package gets a
// place here and in that page.
var layers = [][]string{
	{"internal/clock", "internal/ident", "internal/credits", "internal/query", "internal/secret", "internal/netguard", "internal/source"},
	{"internal/auth", "internal/source/microblog", "internal/source/pronet", "internal/source/sourcetest"},
	{"internal/config", "internal/action", "internal/source/enrich"},
	{"internal/workflow", "internal/search", "internal/topic", "internal/mapping"},
	{"internal/store", "internal/workflow/engine", "internal/sandbox"},
	{"internal/jobs", "internal/store/storetest"},
	{"internal/httpapi"},
	{"internal/app"},
	{"bench/internal/benchkit", "bench/seed"},
	{"cmd/trawl", "client", "bench/..."},
}

// TestImportsReadTopDown fails when a package imports one of its own layer
// or above it (an arrow running back up, as the workflow engine importing
// the store while the store imports workflow did), or when a package has no
// layer yet.
func TestImportsReadTopDown(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: the import picture is checked where it is")
	}
	const module = "github.com/trawlhq/trawl/"
	out, err := exec.Command(gobin, "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, filepath.Join("..", "..")+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	layerOf := func(pkg string) (int, bool) {
		for i, names := range layers {
			for _, name := range names {
				if name == pkg || strings.HasSuffix(name, "/...") && strings.HasPrefix(pkg, strings.TrimSuffix(name, "...")) {
					return i, true
				}
			}
		}
		return 0, false
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		own, ok := layerOf(pkg)
		if !ok {
			t.Errorf("%s has no layer: add it to layers and to docs/architecture.md", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			imp = strings.TrimPrefix(imp, module)
			if l, ok := layerOf(imp); ok && l >= own {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must run down", pkg, own, imp, l)
			}
		}
	}
}
