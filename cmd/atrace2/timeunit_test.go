package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// A V2 trace without its summary does not say whether it counts µs or ns:
// atrace2 guesses and says so, and --time-unit decides.
func TestTimeUnitFlag(t *testing.T) {
	tr, err := tracegen.ParseText(`version 3
clock dual
vm art
thread 1000 main
method 0x4 com.example.App onCreate ()V App.java
1000 enter 0x4 0 0
1000 exit 0x4 1500 2000
`)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "v2.trace")
	if err := os.WriteFile(path, tr.V2(tracegen.V2Options{Layout: tracegen.V2c, NoSummary: true}), 0o644); err != nil {
		t.Fatal(err)
	}
	_, guessed, warn := runCLI(t, nil, "info", "--format", "json", path)
	if !strings.Contains(warn, "--time-unit overrides it") {
		t.Errorf("no warning naming --time-unit: %q", warn)
	}
	for unit, want := range map[string]string{"us": `"wall_duration_ns": 2000000`, "ns": `"wall_duration_ns": 2000,`} {
		code, out, errOut := runCLI(t, nil, "info", "--format", "json", "--time-unit", unit, path)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("--time-unit %s: exit %d, want %s in\n%s%s", unit, code, want, out, errOut)
		}
		if strings.Contains(errOut, "--time-unit overrides it") {
			t.Errorf("--time-unit %s still warns: %s", unit, errOut)
		}
	}
	if !strings.Contains(guessed, `"wall_duration_ns": 2000000`) && !strings.Contains(guessed, `"wall_duration_ns": 2000,`) {
		t.Errorf("the guess is neither µs nor ns:\n%s", guessed)
	}
	if code, _, _ := runCLI(t, nil, "info", "--time-unit", "ms", path); code != exitUsage {
		t.Errorf("--time-unit ms: exit %d, want %d", code, exitUsage)
	}
}
