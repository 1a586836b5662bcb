package parser_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
)

// readAll opens data as a trace and returns its header and records.
func readAll(t *testing.T, data []byte, opt parser.Options) (*parser.Header, []parser.Record, error) {
	t.Helper()
	f, err := parser.NewFile("test.trace", bytes.NewReader(data), int64(len(data)), opt)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return drain(f)
}

func drain(f *parser.File) (*parser.Header, []parser.Record, error) {
	var evs []parser.Record
	r := f.NewReader()
	var ev parser.Record
	for {
		err := r.ReadRecord(&ev)
		if err == io.EOF {
			return f.Header, evs, nil
		}
		if err != nil {
			return f.Header, evs, err
		}
		ev.Offset = 0 // offsets differ between variants
		evs = append(evs, ev)
	}
}

// expected is what the reader must return for tr's records: the times of
// clocks the trace lacks read as zero.
func expected(tr *tracegen.Trace, clock parser.Clock) []parser.Record {
	var evs []parser.Record
	for _, r := range tr.Records {
		ev := parser.Record{Thread: parser.ThreadID(r.Thread), Method: parser.MethodID(r.Method), Action: parser.Action(r.Action)}
		if clock.HasCPU() {
			ev.CPU = uint64(r.CPU)
		}
		if clock.HasWall() {
			ev.Wall = uint64(r.Wall)
		}
		if tr.Version == 1 {
			ev.Thread &= 0xFF
		} else {
			ev.Thread &= 0xFFFF
		}
		evs = append(evs, ev)
	}
	return evs
}

// variant is one way of writing a trace to bytes, and the clock and
// container the reader must then report.
type variant struct {
	name    string
	version int
	clock   string
	write   func(tr *tracegen.Trace) []byte
	want    parser.Variant
}

func variants() []variant {
	regular := func(tr *tracegen.Trace) []byte { return tr.Regular() }
	streaming := func(tr *tracegen.Trace) []byte { return tr.Streaming(tracegen.StreamOptions{SummaryThreads: true}) }
	return []variant{
		{"v1-thread-cpu", 1, "thread-cpu", regular, parser.Regular},
		{"v1-no-clock-line", 1, "", regular, parser.Regular},
		{"v2-wall", 2, "wall", regular, parser.Regular},
		{"v2-thread-cpu", 2, "thread-cpu", regular, parser.Regular},
		{"v3-dual", 3, "dual", regular, parser.Regular},
		{"v3-padded", 3, "dual", func(tr *tracegen.Trace) []byte {
			c := *tr
			c.RecordSize, c.DataOffset = 20, 48 // extra bytes per record and after the header are skipped
			return c.Regular()
		}, parser.Regular},
		{"streaming-v2-wall", 2, "wall", streaming, parser.Streaming},
		{"streaming-v3-dual", 3, "dual", streaming, parser.Streaming},
	}
}

// TestVariantsProperty writes random traces in every variant; each must
// decode to exactly the records written.
func TestVariantsProperty(t *testing.T) {
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(v.version)))
			for i := range 40 {
				tr := tracegen.Random(rng, v.version, v.clock)
				h, got, err := readAll(t, v.write(tr), parser.Options{})
				if err != nil {
					t.Fatalf("trace %d: %v", i, err)
				}
				wantClock, _ := parser.ParseClock(v.clock)
				if v.clock == "" {
					wantClock = parser.ClockThreadCPU
				}
				if h.Clock != wantClock || h.Variant != v.want || h.RecordVersion != v.version || h.StartTime != tr.Start {
					t.Fatalf("header: clock %v variant %v version %d start %d", h.Clock, h.Variant, h.RecordVersion, h.StartTime)
				}
				if h.Records != int64(len(tr.Records)) || h.LostBytes != 0 {
					t.Fatalf("header: %d records, %d lost; want %d, 0", h.Records, h.LostBytes, len(tr.Records))
				}
				if want := expected(tr, wantClock); !slices.Equal(got, want) {
					t.Fatalf("trace %d: records differ\n got %v\nwant %v", i, got, want)
				}
			}
		})
	}
}

func TestTables(t *testing.T) {
	for _, vm := range []string{"dalvik", "art"} {
		tr := tracegen.Small(3, "dual", vm)
		for name, data := range map[string][]byte{"regular": tr.Regular(), "streaming": tr.Streaming(tracegen.StreamOptions{})} {
			h, _, err := readAll(t, data, parser.Options{})
			if err != nil {
				t.Fatalf("%s %s: %v", vm, name, err)
			}
			loop, ok := h.Method(0)
			if !ok || loop.Class != "android.os.Looper" || loop.Name != "loop" || loop.Source != "Looper.java" || loop.HasLine != (vm == "dalvik") {
				t.Errorf("%s %s: method 0 = %+v", vm, name, loop)
			}
			if m, ok := h.Method(4); !ok || m.Class != "com.example.ˊ" || m.Name != "ˎ" {
				t.Errorf("%s %s: method 4 = %+v", vm, name, m)
			}
			// The record id of tid 70000 is its low 16 bits (4464).
			if th, ok := h.Thread(70000 & 0xFFFF); !ok || th.Name != "Binder:4242_2" {
				t.Errorf("%s %s: thread 4464 = %+v, %v", vm, name, th, ok)
			}
			if h.PID() != 4242 || h.EpochStart() != (vm == "dalvik") {
				t.Errorf("%s %s: pid %d epoch %v", vm, name, h.PID(), h.EpochStart())
			}
		}
	}
}

// TestStreamingWithoutSummary covers Android 6-7 files (the key went to a
// .sec file) and killed apps: the clock is guessed from the record size, or
// read from the .sec file, or set with Options.Clock.
func TestStreamingWithoutSummary(t *testing.T) {
	tr := tracegen.Small(3, "dual", "art")
	data := tr.Streaming(tracegen.StreamOptions{NoSummary: true})
	h, got, err := readAll(t, data, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h.Clock != parser.ClockDual || h.HasSummary || len(h.Warnings) != 1 || !slices.Equal(got, expected(tr, parser.ClockDual)) {
		t.Errorf("inferred: clock %v summary %v warnings %q", h.Clock, h.HasSummary, h.Warnings)
	}
	// --clock wall is among the guessed clocks: the guess stands, read
	// whole, without its warning.
	h, got, err = readAll(t, data, parser.Options{Clock: parser.ClockWall})
	if err != nil || h.Clock != parser.ClockDual || len(h.Warnings) != 0 || !slices.Equal(got, expected(tr, parser.ClockDual)) {
		t.Errorf("--clock wall: clock %v warnings %q err %v", h.Clock, h.Warnings, err)
	}
	// A one-time record is guessed wall; --clock thread-cpu replaces the
	// guess: the time is thread CPU time.
	tr2 := tracegen.Small(2, "wall", "art")
	data2 := tr2.Streaming(tracegen.StreamOptions{NoSummary: true})
	h, got, err = readAll(t, data2, parser.Options{Clock: parser.ClockThreadCPU})
	wantCPU := expected(tr2, parser.ClockWall)
	for i := range wantCPU {
		wantCPU[i].CPU, wantCPU[i].Wall = wantCPU[i].Wall, 0
	}
	if err != nil || h.Clock != parser.ClockThreadCPU || h.ClockFrom != "--clock" || len(h.Warnings) != 0 || !slices.Equal(got, wantCPU) {
		t.Errorf("--clock thread-cpu of a guessed wall clock: clock %v from %q warnings %q err %v", h.Clock, h.ClockFrom, h.Warnings, err)
	}

	tr1 := tracegen.Small(2, "thread-cpu", "art")
	dir := t.TempDir()
	path := filepath.Join(dir, "app.trace")
	write(t, path, tr1.Streaming(tracegen.StreamOptions{NoSummary: true}))
	write(t, path+".sec", tr1.Key())
	for _, opt := range []parser.Options{{}, {KeyFile: path + ".sec"}} {
		f, err := parser.Open(path, opt)
		if err != nil {
			t.Fatal(err)
		}
		h, got, err := drain(f)
		f.Close()
		if err != nil || h.Clock != parser.ClockThreadCPU || !slices.Equal(got, expected(tr1, parser.ClockThreadCPU)) {
			t.Errorf("with .sec %+v: clock %v (%s), err %v", opt, h.Clock, h.ClockFrom, err)
		}
	}
}

// TestClockOverride: a clock the file states is read whole whatever
// Options.Clock says, if it is among the file's clocks; the guessed clock
// of a file without its summary is replaced (TestStreamingWithoutSummary).
func TestClockOverride(t *testing.T) {
	tr := tracegen.Small(3, "dual", "art")
	h, got, err := readAll(t, tr.Regular(), parser.Options{Clock: parser.ClockThreadCPU})
	if err != nil || h.Clock != parser.ClockDual || h.ClockFrom != "key text" || len(h.Warnings) != 0 || !slices.Equal(got, expected(tr, parser.ClockDual)) {
		t.Errorf("thread-cpu of a dual-clock trace: clock %v from %q, warnings %q, err %v", h.Clock, h.ClockFrom, h.Warnings, err)
	}
	tr = tracegen.Small(2, "wall", "art")
	var ce *parser.ClockError
	if _, _, err := readAll(t, tr.Regular(), parser.Options{Clock: parser.ClockDual}); !errors.As(err, &ce) {
		t.Errorf("widening wall to dual: err %v, want a ClockError", err)
	}
}

func TestSplitPair(t *testing.T) {
	tr := tracegen.Small(1, "thread-cpu", "dalvik")
	key, data := tr.Split()
	dir := t.TempDir()
	base := filepath.Join(dir, "dmtrace")
	write(t, base+".key", key)
	write(t, base+".data", data)
	for _, name := range []string{base, base + ".key", base + ".data"} {
		f, err := parser.Open(name, parser.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		h, got, err := drain(f)
		f.Close()
		if err != nil || h.Variant != parser.SplitPair || !slices.Equal(got, expected(tr, parser.ClockThreadCPU)) {
			t.Errorf("%s: variant %v err %v records %v", name, h.Variant, err, got)
		}
	}
	// The .data half alone says what is missing.
	if _, _, err := readAll(t, data, parser.Options{}); err == nil || !bytes.Contains([]byte(err.Error()), []byte("NAME.key")) {
		t.Errorf(".data alone: %v", err)
	}
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// ReadRecords returns the same records as ReadRecord, in batches of any size.
func TestReadRecordsBatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, v := range variants() {
		tr := tracegen.Random(rng, v.version, v.clock)
		data := v.write(tr)
		_, want, err := readAll(t, data, parser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{1, 3, 64, 1000} {
			f, err := parser.NewFile("t", bytes.NewReader(data), int64(len(data)), parser.Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := f.NewReader()
			var got []parser.Record
			buf := make([]parser.Record, size)
			for {
				n, err := r.ReadRecords(buf)
				for _, ev := range buf[:n] {
					ev.Offset = 0
					got = append(got, ev)
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			f.Close()
			if !slices.Equal(got, want) {
				t.Errorf("%s, batches of %d: %d records, want %d", v.name, size, len(got), len(want))
			}
		}
	}
}

// TestStreamingScanLarge: the scan of a streaming file skips its records in
// runs over the read buffer, stopping at every method and thread item in
// between, wherever the buffer's edges fall. On a 3 MB trace whose items
// are spread through it, the streaming file must give the regular file's
// methods (those the records use), threads, record count and records.
func TestStreamingScanLarge(t *testing.T) {
	tr := tracegen.Large(tracegen.LargeOptions{Bytes: 3 << 20, Threads: 60, Methods: 2000, Seed: 7})
	rh, revs, err := readAll(t, tr.Regular(), parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sh, sevs, err := readAll(t, tr.Streaming(tracegen.StreamOptions{SummaryThreads: true}), parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sh.Records != int64(len(tr.Records)) || rh.Records != sh.Records {
		t.Errorf("records: streaming %d, regular %d, generated %d", sh.Records, rh.Records, len(tr.Records))
	}
	// A streaming file defines the methods its records use.
	used := map[uint32]bool{}
	for _, r := range tr.Records {
		used[r.Method] = true
	}
	if len(sh.Methods) != len(used) || len(sh.Threads) != len(rh.Threads) {
		t.Fatalf("streaming: %d methods, %d threads; want %d used methods and the regular file's %d threads",
			len(sh.Methods), len(sh.Threads), len(used), len(rh.Threads))
	}
	for _, m := range sh.Methods {
		if want, ok := rh.Method(m.ID); !ok || *want != m || !used[uint32(m.ID)] {
			t.Fatalf("method %#x: streaming %+v, regular %+v", m.ID, m, want)
		}
	}
	if !reflect.DeepEqual(sevs, revs) {
		t.Errorf("streaming gives %d records that differ from the regular file's %d", len(sevs), len(revs))
	}
}
