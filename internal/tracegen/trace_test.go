package tracegen

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"io"
	"strings"
	"testing"
)

// h decodes hex written with spaces and newlines for readability.
func h(s string) []byte {
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		panic(err)
	}
	return b
}

// cat joins expected byte parts; strings are taken literally.
func cat(parts ...any) []byte {
	var b []byte
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			b = append(b, p...)
		case []byte:
			b = append(b, p...)
		default:
			panic("cat: bad part")
		}
	}
	return b
}

// pad14 is the zero padding at offset 18 of every header (docs/formats.md §4).
const pad14 = "0000 0000 0000 0000 0000 0000 0000"

// TestRegular checks the key text and data bytes of regular files, and that
// Regular and Split agree with them (docs/formats.md §3, §4, §5, §9).
func TestRegular(t *testing.T) {
	tests := []struct {
		name     string
		tr       Trace
		key      string
		data     []byte
		wantData []byte
	}{{
		// v1, Dalvik: 6-field method lines with slashes and 0x%08x ids,
		// 9-byte records with a u1 thread (257 truncates to 1), header
		// record size 0, epoch start time.
		name: "v1 dalvik",
		tr: Trace{
			Version: 1, Clock: "thread-cpu", VM: "dalvik", Start: 1370000000000000,
			Threads: []Thread{{1, "main"}, {257, "Thread-257"}},
			Methods: []Method{
				{0x6287d960, "android.os.Debug", "startMethodTracing", "(Ljava/lang/String;)V", "Debug.java", -1},
				{0x62ae8a10, "com.test.Basic$Inner", "bar", "()I", "Basic.java", 18},
			},
			Records: []Record{
				{Thread: 1, Method: 0x62ae8a10, Action: Enter, CPU: 3, Wall: 99},
				{Thread: 257, Method: 0x62ae8a10, Action: Exit, CPU: 7},
				{Thread: 1, Method: 0x6287d960, Action: Exit, CPU: 9},
			},
		},
		key: "*version\n1\ndata-file-overflow=false\nclock=thread-cpu\n" +
			"elapsed-time-usec=9\nnum-method-calls=3\nclock-call-overhead-nsec=2000\nvm=dalvik\n" +
			"*threads\n1\tmain\n257\tThread-257\n*methods\n" +
			"0x6287d960\tandroid/os/Debug\tstartMethodTracing\t(Ljava/lang/String;)V\tDebug.java\t-1\n" +
			"0x62ae8a10\tcom/test/Basic$Inner\tbar\t()I\tBasic.java\t18\n*end\n",
		wantData: h(`534c4f57 0100 2000 00a057fb01de0400 0000 ` + pad14 + `
			01 108aae62 03000000
			01 118aae62 07000000
			01 61d98762 09000000`),
	}, {
		// v2, ART, wall clock: 10-byte records holding the wall time,
		// header record size 0, method 0 printed as "0", u2 thread
		// truncation (70000 = 0x11170), pid after vm.
		name: "v2 art wall",
		tr: Trace{
			Version: 2, Clock: "wall", VM: "art", Start: 0x1234,
			Options: []Option{{"pid", "42"}},
			Threads: []Thread{{70000, "big tid"}},
			Methods: []Method{
				{ID: 0, Class: "java.lang.Thread", Name: "run", Signature: "()V", Source: "Thread.java", Line: 7},
				{ID: 4, Class: "com.example.Foo$Bar", Name: "baz", Signature: "()V", Source: "(null)"},
			},
			Records: []Record{
				{Thread: 70000, Method: 0, Action: Enter, CPU: 5, Wall: 100},
				{Thread: 70000, Method: 4, Action: Enter, Wall: 110},
				{Thread: 70000, Method: 4, Action: Unwind, Wall: 120},
				{Thread: 70000, Method: 0, Action: Exit, Wall: 300},
			},
		},
		key: "*version\n2\ndata-file-overflow=false\nclock=wall\n" +
			"elapsed-time-usec=300\nnum-method-calls=4\nclock-call-overhead-nsec=2000\nvm=art\npid=42\n" +
			"*threads\n70000\tbig tid\n*methods\n" +
			"0\tjava.lang.Thread\trun\t()V\tThread.java\n" +
			"0x4\tcom.example.Foo$Bar\tbaz\t()V\t(null)\n*end\n",
		wantData: h(`534c4f57 0200 2000 3412000000000000 0000 ` + pad14 + `
			7011 00000000 64000000
			7011 04000000 6e000000
			7011 06000000 78000000
			7011 01000000 2c010000`),
	}, {
		// v3 with a 16-byte record size and a 36-byte data offset: both
		// pad with zeros. A standard option replaces its line in place;
		// action 3 is written as asked.
		name: "v3 padded",
		tr: Trace{
			Version: 3, Clock: "dual", VM: "art", Start: 1000, RecordSize: 16, DataOffset: 36,
			Options: []Option{{"pid", "7"}, {"data-file-overflow", "true"}},
			Threads: []Thread{{1, "main"}, {2, "Signal Catcher"}},
			Records: []Record{
				{Thread: 1, Method: 0x4e8, Action: Enter, CPU: 0, Wall: 1000},
				{Thread: 1, Method: 0x4e8, Action: Exit, CPU: 25, Wall: 1040},
				{Thread: 2, Method: 0x4ec, Action: BadAction, CPU: 0, Wall: 1050},
			},
		},
		key: "*version\n3\ndata-file-overflow=true\nclock=dual\n" +
			"elapsed-time-usec=1050\nnum-method-calls=3\nclock-call-overhead-nsec=2000\nvm=art\npid=7\n" +
			"*threads\n1\tmain\n2\tSignal Catcher\n*methods\n*end\n",
		wantData: h(`534c4f57 0300 2400 e803000000000000 1000 ` + pad14 + ` 00000000
			0100 e8040000 00000000 e8030000 0000
			0100 e9040000 19000000 10040000 0000
			0200 ef040000 00000000 1a040000 0000`),
	}, {
		// v3 with no clock, no vm and a bare key: only the sections.
		// Record size 0 means 14, written in the header.
		name: "v3 bare",
		tr: Trace{
			Version: 3, BareKey: true,
			Records: []Record{{Thread: 9, Method: 8, Action: Enter, CPU: 1, Wall: 2}},
		},
		key: "*version\n3\n*threads\n*methods\n*end\n",
		wantData: h(`534c4f57 0300 2000 0000000000000000 0e00 ` + pad14 + `
			0900 08000000 01000000 02000000`),
	}, {
		// v3 with a record size of 10: records are truncated, the way a
		// header that disagrees with clock=dual reads (docs/formats.md §4).
		name: "v3 short records",
		tr: Trace{
			Version: 3, Clock: "dual", BareKey: true, RecordSize: 10,
			Records: []Record{{Thread: 1, Method: 4, Action: Exit, CPU: 3, Wall: 4}},
		},
		key: "*version\n3\nclock=dual\n*threads\n*methods\n*end\n",
		wantData: h(`534c4f57 0300 2000 0000000000000000 0a00 ` + pad14 + `
			0100 05000000 03000000`),
	}, {
		// A v2 record size is written in the header only: v2 records are
		// always 10 bytes. Options replace clock= and vm= in place.
		name: "v2 header field",
		tr: Trace{
			Version: 2, Clock: "thread-cpu", VM: "art", RecordSize: 14, BareKey: true,
			Options: []Option{{"vm", "dalvik"}, {"clock", "global"}, {"alloc-count", "5"}},
			Records: []Record{{Thread: 1, Method: 4, Action: Enter, CPU: 3, Wall: 4}},
		},
		key: "*version\n2\nclock=global\nvm=dalvik\nalloc-count=5\n*threads\n*methods\n*end\n",
		wantData: h(`534c4f57 0200 2000 0000000000000000 0e00 ` + pad14 + `
			0100 04000000 03000000`),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(tt.tr.Key()); got != tt.key {
				t.Errorf("Key() =\n%q\nwant\n%q", got, tt.key)
			}
			key, data := tt.tr.Split()
			if string(key) != tt.key {
				t.Errorf("Split() key =\n%q\nwant\n%q", key, tt.key)
			}
			if !bytes.Equal(data, tt.wantData) {
				t.Errorf("Split() data =\n%x\nwant\n%x", data, tt.wantData)
			}
			if got, want := tt.tr.Regular(), cat(tt.key, tt.wantData); !bytes.Equal(got, want) {
				t.Errorf("Regular() =\n%x\nwant\n%x", got, want)
			}
		})
	}
}

// TestStreaming checks streaming files item by item (docs/formats.md §8.1).
func TestStreaming(t *testing.T) {
	tests := []struct {
		name string
		tr   Trace
		opt  StreamOptions
		want []byte
	}{{
		// Dual clock with summary: op 1 then op 2 before the first record
		// that needs them; the summary has no num-method-calls, an empty
		// *threads (newer ART) and an empty *methods (docs/formats.md §8.2).
		name: "v3 summary",
		tr: Trace{
			Version: 3, Clock: "dual", VM: "art", Start: 5,
			Options: []Option{{"pid", "99"}},
			Threads: []Thread{{1, "main"}, {2, "worker"}},
			Methods: []Method{{0, "a.B", "run", "()V", "B.java", 0}, {4, "a.C", "go", "()V", "C.java", 0}},
			Records: []Record{
				{Thread: 1, Method: 0, Action: Enter, CPU: 0, Wall: 10},
				{Thread: 2, Method: 4, Action: Enter, CPU: 0, Wall: 12},
				{Thread: 1, Method: 4, Action: Enter, CPU: 3, Wall: 15},
				{Thread: 1, Method: 4, Action: Exit, CPU: 5, Wall: 20},
				{Thread: 1, Method: 0, Action: Exit, CPU: 6, Wall: 22},
			},
		},
		want: cat(
			h(`534c4f57 f300 2000 0500000000000000 0e00 `+pad14),
			h("0000 01 1500"), "0\ta.B\trun\t()V\tB.java\n",
			h("0000 02 0100 0400"), "main",
			h("0100 00000000 00000000 0a000000"),
			h("0000 01 1600"), "0x4\ta.C\tgo\t()V\tC.java\n",
			h("0000 02 0200 0600"), "worker",
			h("0200 04000000 00000000 0c000000"),
			h("0100 04000000 03000000 0f000000"),
			h("0100 05000000 05000000 14000000"),
			h("0100 01000000 06000000 16000000"),
			h("0000 03 87000000"),
			"*version\n3\ndata-file-overflow=false\nclock=dual\nelapsed-time-usec=22\n"+
				"clock-call-overhead-nsec=2000\nvm=art\npid=99\n*threads\n*methods\n*end\n",
		),
	}, {
		// One wall clock, no summary (Android 6-7): 10-byte records. The
		// skipped "Shutdown thread" gets no op 2, method 0xc is unknown and
		// gets no op 1, and tid 65537 is written as 1 in both op 2 and the
		// records (docs/formats.md §7, §8.3, §8.4).
		name: "v2 no summary",
		tr: Trace{
			Version: 2, Clock: "wall", VM: "art",
			Threads: []Thread{{3, "Shutdown thread"}, {65537, "big"}},
			Methods: []Method{{8, "x.Y", "z", "()V", "Y.java", 0}},
			Records: []Record{
				{Thread: 3, Method: 8, Action: Enter, CPU: 1, Wall: 7},
				{Thread: 65537, Method: 0xc, Action: Enter, Wall: 9},
				{Thread: 65537, Method: 0xc, Action: Exit, Wall: 11},
				{Thread: 3, Method: 8, Action: Exit, Wall: 13},
			},
		},
		opt: StreamOptions{NoSummary: true, SkipThreadNames: map[uint32]bool{3: true}},
		want: cat(
			h(`534c4f57 f200 2000 0000000000000000 0a00 `+pad14),
			h("0000 01 1500"), "0x8\tx.Y\tz\t()V\tY.java\n",
			h("0300 08000000 07000000"),
			h("0000 02 0100 0300"), "big",
			h("0100 0c000000 09000000"),
			h("0100 0d000000 0b000000"),
			h("0300 09000000 0d000000"),
		),
	}, {
		// Old ART listed every thread in the summary, including threads
		// without records; no records means elapsed-time-usec=0.
		name: "summary threads",
		tr: Trace{
			Version: 3, Clock: "dual", Threads: []Thread{{5, "t"}},
		},
		opt: StreamOptions{SummaryThreads: true},
		want: cat(
			h(`534c4f57 f300 2000 0000000000000000 0e00 `+pad14),
			h("0000 03 7c000000"),
			"*version\n3\ndata-file-overflow=false\nclock=dual\nelapsed-time-usec=0\n"+
				"clock-call-overhead-nsec=2000\n*threads\n5\tt\n*methods\n*end\n",
		),
	}, {
		// A record size set by the test pads streaming records too; the
		// Dalvik style applies to op-1 lines.
		name: "padded dalvik",
		tr: Trace{
			Version: 3, VM: "dalvik", BareKey: true, RecordSize: 15, DataOffset: 33,
			Methods: []Method{{0x10, "a.B", "c", "()V", "B.java", -2}},
			Records: []Record{{Thread: 1, Method: 0x10, Action: Enter, CPU: 1, Wall: 2}},
		},
		opt: StreamOptions{NoSummary: true},
		want: cat(
			h(`534c4f57 f300 2100 0000000000000000 0f00 `+pad14+" 00"),
			h("0000 01 1f00"), "0x00000010\ta/B\tc\t()V\tB.java\t-2\n",
			h("0100 10000000 01000000 02000000 00"),
		),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.tr.Streaming(tt.opt); !bytes.Equal(got, tt.want) {
				t.Errorf("Streaming() =\n%s\nwant\n%s", hex.Dump(got), hex.Dump(tt.want))
			}
		})
	}
}

func TestGzip(t *testing.T) {
	in := (&Trace{Version: 3, Clock: "dual"}).Regular()
	z := Gzip(in)
	if !bytes.Equal(z[:2], []byte{0x1f, 0x8b}) {
		t.Fatalf("Gzip: magic %x, want 1f8b", z[:2])
	}
	if !bytes.Equal(z, Gzip(in)) {
		t.Error("Gzip is not deterministic")
	}
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(out, in) {
		t.Errorf("gunzip = %q, %v; want %q", out, err, in)
	}
}

func TestActionString(t *testing.T) {
	for a, want := range map[Action]string{Enter: "enter", Exit: "exit", Unwind: "unwind", BadAction: "bad", 9: "9"} {
		if got := a.String(); got != want {
			t.Errorf("Action(%d).String() = %q, want %q", a, got, want)
		}
	}
}
