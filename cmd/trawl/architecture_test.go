package main

import (
	"os/exec"
	"strings"
	"testing"
)

// trawlModule is this module's path.
const trawlModule = "github.com/trawlhq/trawl"

// TestBinaryLinksNoBench keeps the benchmark programs and their synthetic
// data generators (bench/..., bench/seed among them) out of the trawl
// binary: neither the binary nor any package under internal/ may depend on
// them, directly or not. Tests may (internal/store's seed through
// bench/seed): go list leaves test imports out.
func TestBinaryLinksNoBench(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("listing the binary's packages needs the go command: %v", err)
	}
	// One line per package: its path, then every package it depends on.
	cmd := exec.CommandContext(t.Context(), goCmd, "list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}",
		".", trawlModule+"/internal/...")
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list: %v\n%s", err, stderr)
	}
	listed := 0
	for line := range strings.Lines(string(out)) {
		pkgs := strings.Fields(line)
		if len(pkgs) == 0 {
			continue
		}
		listed++
		for _, dep := range pkgs[1:] {
			if dep == trawlModule+"/bench" || strings.HasPrefix(dep, trawlModule+"/bench/") {
				t.Errorf("%s depends on %s: benchmark code must stay out of the trawl binary", pkgs[0], dep)
			}
		}
	}
	if listed < 2 || !strings.HasPrefix(string(out), trawlModule+"/cmd/trawl ") {
		t.Fatalf("go list listed %d packages, starting with %.80q; want cmd/trawl and internal/...", listed, out)
	}
}
