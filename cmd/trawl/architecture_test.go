package main

import (
	"os/exec"
	"strings"
	"testing"
)

// trawlModule is this module's path.
const trawlModule = "github.com/trawlhq/trawl/"

// layers is the import picture of docs/architecture.md, bottom first: a
// package may import only packages of lower layers. The binary (cmd/trawl)
// sits below bench/, so it cannot link the benchmark programs or their
// synthetic data generators (bench/seed), directly or through internal/.
// A new package gets a place here and in that page.
var layers = [][]string{
	{"internal/clock", "internal/ident", "internal/credits", "internal/query", "internal/secret", "internal/netguard", "internal/source"},
	{"internal/auth", "internal/integration", "internal/source/microblog", "internal/source/pronet", "internal/source/sourcetest"},
	{"internal/config", "internal/action", "internal/source/enrich", "internal/source/harvestapi"},
	{"internal/workflow", "internal/search", "internal/topic", "internal/mapping", "internal/source/apify"},
	{"internal/store", "internal/workflow/engine", "internal/sandbox"},
	{"internal/jobs", "internal/store/storetest", "internal/delivery", "internal/source/pronet/providertest"},
	{"internal/httpapi", "internal/console"},
	{"internal/app"},
	{"cmd/trawl", "client"},
	{"bench/seed", "bench/internal/benchkit"},
	{"bench/..."},
}

// TestImportsReadTopDown fails when a package imports one of its own layer
// or above it (an arrow running back up, as the workflow engine importing
// the store while the store imported workflow did, or the binary linking
// bench/), or when a package has no layer yet. Test files may import
// anything: go list leaves their imports out.
func TestImportsReadTopDown(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("listing the packages' imports needs the go command: %v", err)
	}
	out, err := exec.CommandContext(t.Context(), goCmd, "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}",
		trawlModule+"...").Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list: %v\n%s", err, stderr)
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
	listed := 0
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		listed++
		pkg := strings.TrimPrefix(fields[0], trawlModule)
		own, ok := layerOf(pkg)
		if !ok {
			t.Errorf("%s has no layer: add it to layers and to docs/architecture.md", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, trawlModule) {
				continue
			}
			imp = strings.TrimPrefix(imp, trawlModule)
			if l, ok := layerOf(imp); ok && l >= own {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must run down", pkg, own, imp, l)
			}
		}
	}
	if listed < 30 {
		t.Fatalf("go list listed %d packages; want the whole module", listed)
	}
}
