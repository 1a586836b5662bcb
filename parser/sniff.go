package parser

import (
	"bytes"
	"regexp"
)

// identify names what a file that is not a method trace is, and the tool
// that opens it, from its first bytes.
func identify(head []byte) error {
	what := "unrecognised data (expected key text starting with *version, or the SLOW magic)"
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	switch {
	case bytes.HasPrefix(head, []byte("SIMPLEPERF")):
		what = "a simpleperf recording (open it with Android Studio or simpleperf's report scripts)"
	case bytes.HasPrefix(head, []byte("PERFILE2")):
		what = "a perf.data recording from simpleperf or Linux perf: convert simpleperf's with simpleperf report-sample --protobuf --show-callchain -i perf.data -o perf.trace, which atrace2 reads (Linux perf's: perf report)"
	case bytes.HasPrefix(head, []byte("\x28\xb5\x2f\xfd")):
		what = "zstd-compressed data: decompress it first (zstd -d), then run atrace2 on the result"
	case bytes.HasPrefix(head, []byte("\x89PNG")):
		what = "a PNG image"
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		what = "a zip archive (an exported Instruments trace, an APK or a bug report? unzip it and pass the .trace inside)"
	case bytes.HasPrefix(head, []byte("JAVA PROFILE 1.0")):
		what = "a Java hprof file: atrace2's info, top, pprof, speedscope and folded commands read hprof CPU profiles written as text (cpu=samples or cpu=times), not binary hprof files such as heap dumps"
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		what = "an ELF binary"
	case bytes.HasPrefix(head, []byte("# tracer:")) || bytes.HasPrefix(head, []byte("TRACE:")):
		what = "a systrace/atrace text trace (open it in ui.perfetto.dev)"
	case bytes.HasPrefix(trimmed, []byte("{")) || bytes.HasPrefix(trimmed, []byte("[")):
		what = "a JSON file"
		switch {
		case bytes.Contains(head, []byte("speedscope")):
			what = "a speedscope JSON profile (open it at speedscope.app)"
		case bytes.Contains(head, []byte("traceEvents")) || bytes.Contains(head, []byte(`"ph"`)):
			what = "a Chrome JSON trace (open it in ui.perfetto.dev)"
		}
	case looksLikePprof(head):
		what = "a pprof profile (open it with go tool pprof)"
	case len(head) > 2 && head[0] == 0x0a && head[1] < 0x80:
		what = "a Perfetto or other protobuf trace (open it in ui.perfetto.dev)"
	case looksFolded(head):
		what = "folded stacks, such as atrace2 folded writes (atrace2 reads traces, not its outputs; open folded stacks with flamegraph.pl, inferno or speedscope)"
	}
	return &notTraceError{what}
}

// looksLikePprof matches a profile.proto: field 1 (sample_type) holding a
// ValueType of two varints, type (field 1) and unit (field 2).
func looksLikePprof(b []byte) bool {
	return len(b) > 6 && b[0] == 0x0a && b[2] == 0x08 && bytes.IndexByte(b[3:6], 0x10) >= 0
}

// foldedThread matches the start of a line of atrace2's folded output:
// the thread's name and id as the first frame.
var foldedThread = regexp.MustCompile(`^[^;\n]* \(tid [0-9]+\);`)

// looksFolded matches folded stacks: text whose first line is frames joined
// by ';' and, when the line ends within head, a space and a count.
func looksFolded(head []byte) bool {
	line, _, complete := bytes.Cut(head, []byte("\n"))
	for _, c := range line {
		if c < 0x20 && c != '\t' && c != '\r' {
			return false
		}
	}
	if foldedThread.Match(line) {
		return true
	}
	if !complete || bytes.IndexByte(line, ';') <= 0 {
		return false
	}
	line = bytes.TrimRight(line, "\r")
	sp := bytes.LastIndexByte(line, ' ')
	if sp <= 0 || sp == len(line)-1 {
		return false
	}
	for _, c := range line[sp+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
