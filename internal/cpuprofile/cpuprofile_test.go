package cpuprofile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/outfile"
)

// TestStart: no path, no profile; a profile is refused over a trace's key
// file found beside it (parser.Sources) and over standard input's file;
// elsewhere it is written, gzipped, once stopped.
func TestStart(t *testing.T) {
	stop, err := Start("", nil, nil)
	if err != nil || stop() != nil {
		t.Fatalf("no path: %v", err)
	}
	dir := t.TempDir()
	trace, sec := filepath.Join(dir, "app.trace"), filepath.Join(dir, "app.trace.sec")
	for _, p := range []string{trace, sec} {
		if err := os.WriteFile(p, []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdin, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var refused *outfile.RefusedError
	if _, err := Start(sec, []string{trace}, nil); !errors.As(err, &refused) || !strings.Contains(err.Error(), "over the input "+sec) {
		t.Errorf("over the key file: %v", err)
	}
	if _, err := Start(trace, []string{"-"}, stdin); !errors.As(err, &refused) || !strings.Contains(err.Error(), "standard input") {
		t.Errorf("over standard input's file: %v", err)
	}
	prof := filepath.Join(dir, "cpu.pprof")
	stop, err = Start(prof, []string{trace}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(prof); err != nil || !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		t.Errorf("profile: %d bytes, %v; want gzip", len(b), err)
	}
	if b, _ := os.ReadFile(sec); string(b) != "mine" {
		t.Errorf("the key file changed")
	}
}
