package parser

import (
	"bytes"
)

// identify names what a file that is not a method trace is, and the tool
// that opens it, from its first bytes.
func identify(head []byte) error {
	what := "unrecognised data (expected key text starting with *version, or the SLOW magic)"
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	switch {
	case bytes.HasPrefix(head, []byte("SIMPLEPERF")):
		what = "a simpleperf recording (open it with Android Studio or simpleperf's report scripts)"
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
	}
	return &notTraceError{what}
}

// looksLikePprof matches a profile.proto: field 1 (sample_type) holding a
// ValueType of two varints, type (field 1) and unit (field 2).
func looksLikePprof(b []byte) bool {
	return len(b) > 6 && b[0] == 0x0a && b[2] == 0x08 && bytes.IndexByte(b[3:6], 0x10) >= 0
}
