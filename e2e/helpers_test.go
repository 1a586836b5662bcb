package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/record/fakeadb"
)

// repoRoot is the module root.
func repoRoot(t testing.TB) string { return testutil.RepoRoot(t) }

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// binary builds atrace2 once per test run.
func binary(t testing.TB) string {
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "atrace2-e2e-"); buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(buildDir, "atrace2"), "./cmd/atrace2")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(buildDir, "atrace2")
}

func TestMain(m *testing.M) {
	fakeadb.Serve() // the test binary is also the fake adb of record_unix_test.go
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// result is one run of the binary.
type result struct {
	code           int
	stdout, stderr string
}

// atrace2 runs the binary with stdin (may be nil).
func atrace2(t testing.TB, stdin []byte, args ...string) result {
	t.Helper()
	return atrace2In(t, "", stdin, args...)
}

// atrace2In runs the binary in dir ("" is the test's own) with stdin (may
// be nil).
func atrace2In(t testing.TB, dir string, stdin []byte, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Dir = dir
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running atrace2 %v: %v", args, err)
	}
	return r
}

// policyTrace and sampleTrace are the shared test traces.
func policyTrace(t testing.TB) string { return testutil.PolicyTrace(t) }
func sampleTrace(t testing.TB) string { return testutil.SampleTrace(t) }
