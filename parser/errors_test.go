package parser_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"regexp"
	"slices"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
)

// withHeader returns a v3 trace whose SLOW header fields are patched.
func withHeader(version, recordSize uint16) []byte {
	tr := tracegen.Small(3, "dual", "art")
	b := tr.Regular()
	i := bytes.Index(b, []byte("*end\n")) + 5
	binary.LittleEndian.PutUint16(b[i+4:], version)
	binary.LittleEndian.PutUint16(b[i+16:], recordSize)
	return b
}

func TestBadInput(t *testing.T) {
	key := tracegen.Small(3, "dual", "art").Key()
	streaming := tracegen.Small(3, "dual", "art").Streaming(tracegen.StreamOptions{})
	badOp := append(bytes.Clone(streaming[:32]), 0, 0, 9, 1, 2, 3)
	pprof := []byte{0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x12, 0x00} // gzipped: internal/input TestGzipNotATrace
	for _, c := range []struct {
		name    string
		data    []byte
		want    string // regexp on the error
		notOurs bool   // ErrNotMethodTrace
	}{
		{"empty", nil, `^offset 0 \(0x0\): empty file`, false},
		{"key-only", key, `the key text ends without the binary data`, false},
		{"key-without-end", []byte("*version\n3\nclock=dual\n*threads\n"), `without an \*end line`, false},
		{"star-garbage", []byte("*** hello\n"), `without an \*end line|expected key text`, false},
		{"bad-magic", append(bytes.Clone(key), "SLOX"+string(make([]byte, 28))...), `expected the SLOW data header magic 53 4c 4f 57, found 53 4c 4f 58`, false},
		{"header-cut", append(bytes.Clone(key), "SLOW\ndata section follows..\n"...), `SLOW data header is cut short|unknown data version`, false},
		{"unknown-version", withHeader(7, 14), `unknown data version 0x7: expected 1, 2, 3`, false},
		{"v2-format", withHeader(5, 14), `ART's V2 method-trace format`, false},
		{"re-encoded", withHeader(3, 1186), `impossible record size 1186 .* text re-encoding`, false},
		{"pointer-variant", withHeader(3, 18), `record size 18 .* 64-bit method ids`, false},
		{"record-too-small", withHeader(3, 10), `impossible record size 10`, false},
		{"bad-method-line", []byte("*version\n3\n*methods\nnot a method\n*end\n"), `offset 20 \(0x14\): key text: expected <id><TAB><class>`, false},
		{"bad-version-number", []byte("*version\nthree\n*end\n"), `expected a version number after \*version, found "three"`, false},
		{"dual-in-v2-records", tracegen.Small(2, "dual", "art").Regular(), `clock dual needs two times per record`, false},
		{"unknown-clock", tracegen.Small(3, "sundial", "art").Regular(), `unknown clock "sundial"`, false},
		{"streaming-bad-op", badOp, `offset 32 \(0x20\): unknown streaming item: thread id 0 must be followed by op 1, 2 or 3, found 9`, false},
		{"simpleperf", []byte("SIMPLEPERF\x00\x01"), `simpleperf`, true},
		{"zstd", []byte("\x28\xb5\x2f\xfd\x00"), `zstd -d`, true},
		{"png", []byte("\x89PNG\r\n\x1a\n"), `PNG image`, true},
		{"zip", []byte("PK\x03\x04...."), `zip archive`, true},
		{"speedscope", []byte(`{"$schema": "https://www.speedscope.app/file-format-schema.json"}`), `speedscope`, true},
		{"chrome-json", []byte(` {"traceEvents": []}`), `Chrome JSON trace`, true},
		{"pprof", pprof, `pprof profile`, true},
		{"perfetto", []byte{0x0a, 0x05, 0x50, 0x01, 0x40, 0x02, 0x00}, `Perfetto`, true},
		{"hprof", []byte("JAVA PROFILE 1.0.1, created Wed"), `hprof`, true},
		{"random", []byte("hello world"), `not an Android method trace: unrecognised data`, true},
		{"perf.data", []byte("PERFILE2\x68\x00\x00\x00\x00\x00\x00\x00\x88\x00"), `^not an Android method trace: a perf\.data recording from simpleperf or Linux perf: convert simpleperf's with simpleperf report-sample --protobuf --show-callchain -i perf\.data -o perf\.trace, which atrace2 reads \(Linux perf's: perf report\)$`, true},
		{"folded-atrace2", []byte("main (tid 4821);android.app.ActivityThread.main;android.os.Looper.loop;android.os.MessageQueue.next 12\n"), `^not an Android method trace: folded stacks, such as atrace2 folded writes \(atrace2 reads traces, not its outputs`, true},
		{"folded-plain", []byte("a;b;c 3\na;b 1\n"), `folded stacks`, true},
		{"text-with-semicolon", []byte("hello; world\n"), `unrecognised data`, true},
		{"text-number", []byte("hello world 42\n"), `unrecognised data`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := readAll(t, c.data, parser.Options{})
			if err == nil {
				t.Fatal("no error")
			}
			if !regexp.MustCompile(c.want).MatchString(err.Error()) {
				t.Errorf("error %q does not match %q", err, c.want)
			}
			if errors.Is(err, parser.ErrNotMethodTrace) != c.notOurs {
				t.Errorf("errors.Is(ErrNotMethodTrace) = %v, want %v", !c.notOurs, c.notOurs)
			}
		})
	}
}

// TestTruncation cuts files at every byte: never a panic; once the tables
// are whole, the whole records before the cut are read and the rest is
// counted as lost.
func TestTruncation(t *testing.T) {
	tr := tracegen.Small(3, "dual", "art")
	for name, data := range map[string][]byte{
		"regular":   tr.Regular(),
		"streaming": tr.Streaming(tracegen.StreamOptions{}),
	} {
		all := expected(tr, parser.ClockDual)
		for cut := 0; cut < len(data); cut++ {
			h, got, err := readAll(t, data[:cut], parser.Options{Clock: parser.ClockDual})
			if err != nil {
				continue // a cut inside the key or header is an error, which is fine
			}
			if len(got) > len(all) || !slices.Equal(got, all[:len(got)]) {
				t.Fatalf("%s cut at %d: records %v", name, cut, got)
			}
			if name == "regular" {
				whole := (int64(cut) - h.DataOffset) / 14
				if h.Records != whole || h.LostBytes != int64(cut)-h.DataOffset-14*whole || int64(len(got)) != whole {
					t.Fatalf("%s cut at %d: %d records, %d lost", name, cut, h.Records, h.LostBytes)
				}
			}
		}
	}
}
