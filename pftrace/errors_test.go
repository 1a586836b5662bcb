package pftrace_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/pftrace"
	"github.com/atrace2/atrace2/samples"
)

// small is a trace of every feature, small enough to cut at every byte.
var small = tracegen.StackProfile{Seed: 21, Samples: 60, Sequences: 2, ClearEvery: 25, SplitInterned: true, UnknownStacks: 1, Skipped: 1, StacksPerThread: 3}

// TestTruncated cuts traces at every byte: nothing panics, a cut before
// the first whole packet is not a Perfetto trace, a cut inside a later
// packet keeps the samples before it and says the trace is truncated,
// and no cut gives more samples than the whole trace.
func TestTruncated(t *testing.T) {
	plain, _ := small.Perfetto()
	bundled := small
	bundled.CompressEvery = 5
	comp, _ := bundled.Perfetto()
	zipped := small
	zipped.Gzip = true
	gz, _ := zipped.Perfetto()
	full := total(t, plain)
	for _, c := range []struct {
		name string
		data []byte
		step int
	}{{"plain", plain, 1}, {"compressed", comp, 3}, {"gzip", gz, 11}} {
		t.Run(c.name, func(t *testing.T) {
			// Every byte of the head (the first packets of every kind),
			// then every step-th.
			for n := 0; n < len(c.data); n += max(c.step, 1+8*(n/4096)) {
				p, err := pftrace.Read(bytes.NewReader(c.data[:n]), pftrace.Options{})
				var ns *pftrace.NoSamplesError
				switch {
				case errors.Is(err, pftrace.ErrNotPerfetto), errors.As(err, &ns):
					continue
				case err != nil:
					t.Fatalf("cut at %d: %v", n, err)
				}
				if err := p.Check(); err != nil {
					t.Fatalf("cut at %d: %v", n, err)
				}
				var got int64
				for _, proc := range p.Processes {
					got += proc.Samples
				}
				if got > full {
					t.Fatalf("cut at %d: %d samples, the whole trace has %d", n, got, full)
				}
				if c.name == "plain" && !p.Truncated && !atPacketEnd(c.data, n) {
					t.Fatalf("cut at %d inside a packet: not marked truncated", n)
				}
			}
		})
	}
}

// total is the number of stack samples of a trace, all processes.
func total(t *testing.T, data []byte) int64 {
	t.Helper()
	p, err := pftrace.Read(bytes.NewReader(data), pftrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, proc := range p.Processes {
		n += proc.Samples
	}
	return n
}

// atPacketEnd reports whether n bytes of a plain trace end after a whole
// packet.
func atPacketEnd(data []byte, n int) bool {
	for i := 0; i < n; {
		l, k := binary.Uvarint(data[i+1:])
		i += 1 + k + int(l)
		if i == n {
			return true
		}
	}
	return n == 0
}

// TestNotPerfetto: other formats are refused with ErrNotPerfetto, and
// Sniff tells them from Perfetto traces, plain or gzip-compressed.
func TestNotPerfetto(t *testing.T) {
	method, err := os.ReadFile(testutil.SampleTrace(t))
	if err != nil {
		t.Fatal(err)
	}
	pprof := []byte{0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x0a, 0x04, 0x08, 0x03, 0x10, 0x04}
	for name, data := range map[string][]byte{
		"empty": nil, "text": []byte("THREAD START (obj=1, id = 1, name=\"main\", group=\"main\")\n"),
		"method trace": method, "pprof": pprof, "simpleperf": []byte("SIMPLEPERF\x01\x00\x00\x00\x00\x00"),
	} {
		if pftrace.Sniff(data) {
			t.Errorf("%s: sniffed as Perfetto", name)
		}
		if _, err := pftrace.Read(bytes.NewReader(data), pftrace.Options{}); !errors.Is(err, pftrace.ErrNotPerfetto) {
			t.Errorf("%s: error %v, want ErrNotPerfetto", name, err)
		}
	}
	plain, _ := small.Perfetto()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	// A trace whose packets are bundled in compressed_packets starts with
	// a bundle larger than the 4 KiB a sniff sees.
	bundled, _ := tracegen.StackProfile{Seed: 1, Samples: 3000, CompressEvery: 200}.Perfetto()
	for name, data := range map[string][]byte{"plain": plain, "gzip": gz.Bytes(), "head": plain[:64], "bundle head": bundled[:4096]} {
		if !pftrace.Sniff(data) {
			t.Errorf("%s: not sniffed as Perfetto", name)
		}
	}
}

// packet appends a Trace's packet field to t.
func packet(t []byte, body []byte) []byte {
	t = append(t, 0x0a)
	t = binary.AppendUvarint(t, uint64(len(body)))
	return append(t, body...)
}

// TestMalformed: a malformed field inside a packet is an error that names
// its offset.
func TestMalformed(t *testing.T) {
	ok := []byte{0x40, 0x05} // timestamp: 5
	// Sequence 1, cleared, and interned_data whose function_names field
	// runs past its end.
	bad := []byte{0x50, 0x01, 0xc8, 0x02, 0x01, 0x62, 0x03, 0x2a, 0x05, 0x0a}
	data := packet(packet(nil, ok), bad)
	_, err := pftrace.Read(bytes.NewReader(data), pftrace.Options{})
	var fe *pftrace.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v, want a FormatError", err)
	}
	// The bad packet's body starts at 4+2; function_names' value would
	// start 9 bytes later.
	if want := "offset 15 (0xf): in InternedData: field 5: length 5, only 1 bytes left"; err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %q spans lines", err)
	}
}

// TestNoSamples: a trace without stack samples says in one line what it
// holds.
func TestNoSamples(t *testing.T) {
	var data []byte
	data = packet(data, []byte{0x32, 0x00})             // a clock snapshot
	data = packet(data, []byte{0x5a, 0x00, 0x50, 0x01}) // a track event on sequence 1
	data = packet(data, []byte{0x5a, 0x00, 0x50, 0x01})
	_, err := pftrace.Read(bytes.NewReader(data), pftrace.Options{})
	want := "no CPU stack samples: the trace holds 3 packets (2 track events, 1 clock snapshot); ui.perfetto.dev opens it"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}

// TestUnknownFields: fields a reader does not know, in the trace, a packet
// and the messages it reads, are skipped.
func TestUnknownFields(t *testing.T) {
	const unknown = "\xb8\x3e\x07" // field 999, varint 7
	var plain, extra []byte
	// A small hand trace: a cleared sequence interning one call stack, and
	// a sample, each message with an unknown field.
	interned := "\x2a\x06\x08\x01\x12\x02ab" + // function_names {iid 1 str "ab"}
		"\x32\x07\x08\x01\x10\x01" + unknown + // frames {iid 1 function_name_id 1}
		"\x3a\x04\x08\x01\x10\x01" // callstacks {iid 1 frame_ids 1}
	first := "\x50\x01\xc8\x02\x01\x62" + string(byte(len(interned))) + interned
	sample := "\x40\x0a\x50\x01\x68\x02\x92\x04\x06\x10\x05\x18\x06\x20\x01"
	plain = packet(packet(nil, []byte(first)), []byte(sample))
	withUnknown := "\x40\x0a\x50\x01\x68\x02\x92\x04\x09\x10\x05\x18\x06\x20\x01" + unknown + unknown
	extra = packet(packet(nil, []byte(first+unknown)), []byte(withUnknown))
	extra = append(extra, 0x10, 0x03) // a Trace field 2, varint
	for name, data := range map[string][]byte{"plain": plain, "unknown fields": extra} {
		p, err := pftrace.Read(bytes.NewReader(data), pftrace.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(p.Samples) != 1 || p.Threads[0].TID != 6 || p.Frames[0].Name != "ab" {
			t.Fatalf("%s: samples %+v, frames %+v", name, p.Samples, p.Frames)
		}
	}
}

// msg builds a protobuf message for the hand-made traces of these tests.
type msg []byte

func (m msg) v(num int, x uint64) msg {
	m = binary.AppendUvarint(m, uint64(num)<<3)
	return binary.AppendUvarint(m, x)
}

func (m msg) b(num int, sub []byte) msg {
	m = binary.AppendUvarint(m, uint64(num)<<3|2)
	m = binary.AppendUvarint(m, uint64(len(sub)))
	return append(m, sub...)
}

// TestPackedStreaming: a StreamingProfilePacket's repeated fields read
// the same packed or not (protobuf's parsers accept both; trace_processor
// reads the unpacked form its writers use).
func TestPackedStreaming(t *testing.T) {
	interned := msg(nil).b(5, msg(nil).v(1, 1).b(2, []byte("f"))). // function_names
									b(6, msg(nil).v(1, 1).v(2, 1)). // frames
									b(7, msg(nil).v(1, 1).v(2, 1))  // callstacks
	head := msg(nil).v(10, 2).v(41, 1).
		b(44, msg(nil).v(1, 9).v(2, 10).v(6, 1)). // thread_descriptor, at 1 µs
		b(12, interned)
	unpacked := msg(nil).v(10, 2).b(54, msg(nil).v(1, 1).v(1, 1).v(2, 2).v(2, 3))
	packed := msg(nil).v(10, 2).b(54, msg(nil).b(1, []byte{1, 1}).b(2, []byte{2, 3}))
	for _, body := range []msg{unpacked, packed} {
		data := packet(packet(nil, head), body)
		p, err := pftrace.Read(bytes.NewReader(data), pftrace.Options{Select: samples.Select{Timeline: true}})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Samples) != 1 || p.Samples[0].Count != 2 || p.StartNanos != 3000 || p.EndNanos != 6000 {
			t.Fatalf("samples %+v from %d to %d, want 2 at 3 and 6 µs", p.Samples, p.StartNanos, p.EndNanos)
		}
	}
}

// TestBundles: a compressed_packets field that does not inflate is an
// error at its offset; zstd bundles are said to be unread.
func TestBundles(t *testing.T) {
	bad := packet(nil, msg(nil).b(50, []byte{0x78, 0x9c, 0x01, 0x02}))
	_, err := pftrace.Read(bytes.NewReader(bad), pftrace.Options{})
	var fe *pftrace.FormatError
	if !errors.As(err, &fe) || fe.Off != 5 || !strings.Contains(err.Error(), "compressed packets do not decompress") {
		t.Fatalf("error %v, want a FormatError at offset 5, where the field's bytes start", err)
	}
	zstd := packet(packet(nil, msg(nil).v(8, 1)), msg(nil).b(133, []byte{0x28, 0xb5, 0x2f, 0xfd}))
	_, err = pftrace.Read(bytes.NewReader(zstd), pftrace.Options{})
	want := "no CPU stack samples: the trace holds 1 packet (1 packet of sequence state only (interned data, defaults)); 1 bundle of zstd-compressed packets was not read; ui.perfetto.dev opens it"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}

// TestNoSamplesCounts: the error's counts agree with their nouns and have
// thousands separators.
func TestNoSamplesCounts(t *testing.T) {
	for _, c := range []struct {
		e    pftrace.NoSamplesError
		want string
	}{
		{pftrace.NoSamplesError{Packets: 26785, Kinds: []pftrace.Kind{{"track events", 26784}, {"clock snapshot", 1}}, Skipped: 1, Reason: "no clock", ZstdBundles: 2},
			"no CPU stack samples: the trace holds 26,785 packets (26,784 track events, 1 clock snapshot); 1 sample could not be read (no clock); 2 bundles of zstd-compressed packets were not read; ui.perfetto.dev opens it"},
		{pftrace.NoSamplesError{Packets: 1, Kinds: []pftrace.Kind{{"packet of field 999", 1}}, Skipped: 1500, Reason: "no clock"},
			"no CPU stack samples: the trace holds 1 packet (1 packet of field 999); 1,500 samples could not be read (no clock); ui.perfetto.dev opens it"},
		{pftrace.NoSamplesError{Packets: 7, Kinds: []pftrace.Kind{{"a", 1}, {"b", 1}, {"c", 1}, {"d", 1}, {"e", 1}, {"f", 1}}},
			"no CPU stack samples: the trace holds 7 packets (1 a, 1 b, 1 c, 1 d, 1 e, 1 more kind); ui.perfetto.dev opens it"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
