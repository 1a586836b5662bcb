package perfettopb

import (
	"bytes"
	"fmt"
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// pinnedGen is the protoc-gen-go that wrote perfetto_trace.pb.go; it must
// match the google.golang.org/protobuf version in go.mod.
const pinnedGen = "v1.36.12"

var (
	genVersionLine    = regexp.MustCompile(`(?m)^// \tprotoc-gen-go (\S+)$`)
	protocVersionLine = regexp.MustCompile(`(?m)^// \tprotoc +\S+$`)
)

// TestGeneratedCodeIsFresh regenerates the Go code from the .proto into a
// temporary directory and requires it to equal the committed file byte for
// byte, apart from the protoc version comment (protoc's version does not
// change the code protoc-gen-go writes).
func TestGeneratedCodeIsFresh(t *testing.T) {
	// Reading the .proto here makes go test's cache depend on it: protoc
	// reads it in a subprocess, which the cache does not see.
	if _, err := os.ReadFile("perfetto_trace.proto"); err != nil {
		t.Fatal(err)
	}
	protoc, gen := findTools(t)
	out := t.TempDir()
	cmd := exec.Command(protoc, "--plugin=protoc-gen-go="+gen, "-I", ".",
		"--go_out="+out, "--go_opt=paths=source_relative", "perfetto_trace.proto")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("protoc: %v\n%s", err, b)
	}
	fresh, err := os.ReadFile(filepath.Join(out, "perfetto_trace.pb.go"))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("perfetto_trace.pb.go")
	if err != nil {
		t.Fatal(err)
	}
	if v := genVersion(fresh); v != pinnedGen {
		skipOrFail(t, fmt.Sprintf("protoc-gen-go %s is installed, want %s: run .ci/setup-protoc.sh", v, pinnedGen))
	}
	if !bytes.Equal(dropProtocVersion(fresh), dropProtocVersion(committed)) {
		t.Fatal("perfetto_trace.pb.go is stale: run `go generate ./proto` and commit the result")
	}
}

// skipOrFail skips the test for a missing tool, unless
// ATRACE2_PROTOC=require (.ci/run sets it, after .ci/setup-protoc.sh),
// which turns the skip into a failure: CI must not pass having run nothing.
func skipOrFail(t *testing.T, msg string) {
	t.Helper()
	if os.Getenv("ATRACE2_PROTOC") == "require" {
		t.Fatal(msg + " (ATRACE2_PROTOC=require)")
	}
	t.Skip(msg)
}

// findTools locates protoc and protoc-gen-go, skipping the test without them.
func findTools(t *testing.T) (protoc, gen string) {
	protoc, err := exec.LookPath("protoc")
	if err != nil {
		skipOrFail(t, "protoc is not installed (apt-get install protobuf-compiler, or .ci/setup-protoc.sh): cannot check the generated code")
	}
	gen, err = exec.LookPath("protoc-gen-go")
	if err != nil {
		gen = filepath.Join(build.Default.GOPATH, "bin", "protoc-gen-go")
		if _, serr := os.Stat(gen); serr != nil {
			skipOrFail(t, "protoc-gen-go is not installed (go install google.golang.org/protobuf/cmd/protoc-gen-go@"+pinnedGen+"): cannot check the generated code")
		}
	}
	return protoc, gen
}

func genVersion(src []byte) string {
	m := genVersionLine.FindSubmatch(src)
	if m == nil {
		return "unknown"
	}
	return string(m[1])
}

func dropProtocVersion(src []byte) []byte {
	return protocVersionLine.ReplaceAll(src, nil)
}
