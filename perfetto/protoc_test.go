package perfetto_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/perfetto"
)

// unknownField matches what protoc prints for a field the schema lacks.
var unknownField = regexp.MustCompile(`(?m)^\s*[0-9]+:`)

// TestProtocDecode decodes our output with protoc and our .proto subset
// (docs/outputs.md §4.2): it must parse, every field must be known to the subset,
// and there must be one track_event per event written. Without protoc the
// test skips, unless ATRACE2_PROTOC=require (CI sets it).
func TestProtocDecode(t *testing.T) {
	protoc, err := exec.LookPath("protoc")
	if err != nil {
		msg := "protoc is not installed (apt-get install protobuf-compiler, or .ci/setup-protoc.sh): skipping the protoc --decode check"
		if os.Getenv("ATRACE2_PROTOC") == "require" {
			t.Fatal(msg + " (ATRACE2_PROTOC=require)")
		}
		t.Skip(msg)
	}
	protoDir := filepath.Join(repoRoot(t), "proto")
	for _, c := range policyCases {
		t.Run(c.name, func(t *testing.T) {
			x := export(t, openText(t, c.name+".trace", c.src), perfetto.Options{})
			cmd := exec.Command(protoc, "-I", protoDir, "--decode=atrace2.perfetto.Trace", "perfetto_trace.proto")
			cmd.Stdin = bytes.NewReader(x.out)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			text, err := cmd.Output()
			if err != nil {
				t.Fatalf("protoc --decode: %v\n%s", err, stderr.Bytes())
			}
			if m := unknownField.Find(text); m != nil {
				t.Errorf("protoc shows a field outside the subset: %q", m)
			}
			if n := int64(strings.Count(string(text), "\n  track_event {")); n != x.exp.EventCount() {
				t.Errorf("protoc shows %d track events, the exporter wrote %d", n, x.exp.EventCount())
			}
		})
	}
}
