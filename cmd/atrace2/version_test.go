package main

import (
	"strings"
	"testing"
)

// TestVersionFlag runs --version in-process: the name and the version.
func TestVersionFlag(t *testing.T) {
	code, out, _ := runCLI(t, nil, "--version")
	if code != 0 || !strings.HasPrefix(out, "atrace2 "+versionString()) || strings.Count(out, "\n") != 1 {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}
