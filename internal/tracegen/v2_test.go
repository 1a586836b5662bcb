package tracegen

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// v2Sample is one thread (tid 70000, above 16 bits) calling one method.
func v2Sample(clock string) *Trace {
	return &Trace{
		Clock: clock, VM: "art", Start: 0x0102030405,
		Threads: []Thread{{ID: 70000, Name: "main"}},
		Methods: []Method{{ID: 4, Class: "a.B", Name: "run", Signature: "()V", Source: "B.java"}},
		Records: []Record{
			{Thread: 70000, Method: 4, Action: Enter, CPU: 0, Wall: 10},
			{Thread: 70000, Method: 4, Action: Exit, CPU: 300, Wall: 200},
		},
	}
}

// Hand-encoded parts of the V2 sample (docs/formats.md §10.2-10.4). The method
// pointer is 0x7f00_0000_0000 + 4*0x38 = 0x7f00_0000_00e0.
const (
	v2Zero18   = "0000 0000 0000 0000 0000 0000 0000 0000 0000"
	v2Method   = "01 e000000000 7f0000 1300" // type 1, u8 pointer, u2 len 19
	v2MText    = "a.B\trun\t()V\tB.java\n"
	v2Thread   = "00 70110100 0400" // type 0, tid 70000 = 0x11170, u2 len 4
	v2PtrSLEB  = "e0 81 80 80 80 e0 1f"
	v2SumStart = "*version\n5\ndata-file-overflow=false\nclock=dual\n"
)

// TestV2Bytes checks whole V2 files byte by byte against hand-encoded
// packets: V2c streaming, V2d non-streaming, V2b with one clock, and row E.
func TestV2Bytes(t *testing.T) {
	tests := []struct {
		name string
		tr   *Trace
		opt  V2Options
		want []byte
	}{{
		// Streaming: version 0xF5; the thread packet precedes its first
		// block; the records are SLEB(word), ULEB(wall Δ), ULEB(cpu Δ):
		// (ptr, 10, 0) then (+1 for the exit action, 190, 300); a summary
		// in µs without num-method-calls.
		name: "V2c streaming",
		tr:   v2Sample("dual"), opt: V2Options{Streaming: true},
		want: cat(h("534c4f57 f500 0504030201000000"), h(v2Zero18),
			h(v2Method), v2MText, h(v2Thread), "main",
			h("02 70110100 020000 0e000000"), h(v2PtrSLEB+"0a 00 01 be01 ac02"),
			h("03 6f00"), v2SumStart+"elapsed-time-usec=200\nclock-call-overhead-nsec=2000\nvm=art\n*end\n"),
	}, {
		// V2d: the start time and every time ×1000 (10 000 = 90 4e,
		// 190 000 = b0 cc 0b, 300 000 = e0 a7 12); non-streaming: thread
		// packets before the blocks and num-method-calls in the summary.
		name: "V2d",
		tr:   v2Sample("dual"), opt: V2Options{Layout: V2d},
		want: cat(h("534c4f57 0500 88b3c7dbef030000"), h(v2Zero18),
			h(v2Method), v2MText, h(v2Thread), "main",
			h("02 70110100 020000 11000000"), h(v2PtrSLEB+"904e 00 01 b0cc0b e0a712"),
			h("03 8500"), v2SumStart+"elapsed-time-nsec=200000\nnum-method-calls=2\nclock-call-overhead-nsec=2000\nvm=art\n*end\n"),
	}, {
		// V2b, wall only: the first record in the header (u8 word, u4 wall),
		// u2 n-1 = 1, u2 size 3, then (+1, 190).
		name: "V2b wall",
		tr:   v2Sample("wall"), opt: V2Options{Layout: V2b, NoSummary: true},
		want: cat(h("534c4f57 0400 0504030201000000"), h(v2Zero18),
			h(v2Method), v2MText, h(v2Thread), "main",
			h("02 70110100 e000000000 7f0000 0a000000 0100 0300 01 be01")),
	}, {
		// Row E: method packets, the V1-style key text, then SLOW and the
		// V2b blocks with the CPU time before the wall time in the header.
		name: "hybrid",
		tr:   v2Sample("dual"), opt: V2Options{Layout: V2b, Hybrid: true},
		want: cat(h(v2Method), v2MText,
			v2SumStart+"elapsed-time-usec=200\nclock-call-overhead-nsec=2000\nvm=art\n*threads\n*methods\n*end\n",
			h("534c4f57 0500 0504030201000000"), h(v2Zero18),
			h("02 70110100 e000000000 7f0000 00000000 0a000000 0100 0500 01 be01 ac02")),
	}}
	for _, tt := range tests {
		if got := tt.tr.V2(tt.opt); !bytes.Equal(got, tt.want) {
			t.Errorf("%s:\n got % x\nwant % x", tt.name, got, tt.want)
		}
	}
}

// blockHeaders returns the (tid, count, size) of every V2c block of b,
// walking the packets as docs/formats.md §10.3 frames them.
func blockHeaders(t *testing.T, b []byte) [][3]uint32 {
	var out [][3]uint32
	for i := headerSize; i < len(b); {
		switch b[i] {
		case v2ThreadInfo:
			i += 7 + int(binary.LittleEndian.Uint16(b[i+5:]))
		case v2MethodInfo:
			i += 11 + int(binary.LittleEndian.Uint16(b[i+9:]))
		case v2Block:
			if b[i+7] != 0 {
				t.Fatalf("count's third byte is %#x, want 0 (ART writes a u16)", b[i+7])
			}
			count := uint32(binary.LittleEndian.Uint16(b[i+5:]))
			size := binary.LittleEndian.Uint32(b[i+8:])
			out = append(out, [3]uint32{binary.LittleEndian.Uint32(b[i+1:]), count, size})
			i += 12 + int(size)
		default:
			return out // the summary
		}
	}
	return out
}

// TestV2Blocks checks the grouping of records into blocks: runs of a
// thread, FlushRecords caps, split flushes with cumulative counts and
// carried state, and a count truncated to 16 bits.
func TestV2Blocks(t *testing.T) {
	tr := v2Sample("dual")
	tr.Records = append(tr.Records, Record{Thread: 5, Method: 4, Action: Enter, Wall: 300}, Record{Thread: 70000, Method: 4, Action: Enter, CPU: 301, Wall: 301})
	got := blockHeaders(t, tr.V2(V2Options{}))
	want := [][3]uint32{{70000, 2, 14}, {5, 1, 10}, {70000, 1, 11}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("runs: %v, want %v", got, want)
	}
	// Split: the second block's record is a delta from the first block's
	// (+1 word, wall +190, cpu +300: 5 bytes) and its count is cumulative.
	split := v2Sample("dual").V2(V2Options{SplitRecords: 1, NoSummary: true})
	got = blockHeaders(t, split)
	if len(got) != 2 || got[0] != [3]uint32{70000, 1, 9} || got[1] != [3]uint32{70000, 2, 5} || !bytes.HasSuffix(split, h("01 be01 ac02")) {
		t.Errorf("split: %v, tail % x", got, split[len(split)-5:])
	}
	long := &Trace{Clock: "wall", Threads: []Thread{{ID: 1, Name: "t"}}}
	for i := range 70_000 {
		long.Records = append(long.Records, Record{Thread: 1, Method: 4, Action: Action(i % 2), Wall: uint32(i)})
	}
	got = blockHeaders(t, long.V2(V2Options{NoSummary: true}))
	if len(got) != 1 || got[0][1] != 70_000&0xFFFF {
		t.Errorf("70 000 records: %v, want one block with count %d", got, 70_000&0xFFFF)
	}
	got = blockHeaders(t, long.V2(V2Options{NoSummary: true, FlushRecords: 30_000}))
	if len(got) != 3 || got[0][1] != 30_000 || got[2][1] != 10_000 {
		t.Errorf("flushes of 30 000: %v", got)
	}
}

// TestV2Packets checks the options that add or drop packets.
func TestV2Packets(t *testing.T) {
	tr := v2Sample("dual")
	data := tr.V2(V2Options{RepeatMethods: true, ExtraMethods: 2, SkipThreadNames: map[uint32]bool{70000: true}})
	if n := bytes.Count(data, []byte(v2MText)); n != 2 {
		t.Errorf("%d copies of the method text, want 2", n)
	}
	if !bytes.Contains(data, []byte("java.lang.Extra1\trun\t()V\tExtra.java\n")) || bytes.Contains(data, []byte("main")) {
		t.Errorf("extra methods or skipped thread wrong: %q", data)
	}
}

// TestLEB128 checks the encoders at the edges of each byte count.
func TestLEB128(t *testing.T) {
	for _, c := range []struct {
		v    int64
		want string
	}{
		{0, "00"}, {63, "3f"}, {64, "c000"}, {-1, "7f"}, {-64, "40"}, {-65, "bf7f"},
		{1<<63 - 1, "ffffffffffffffffff00"}, {-1 << 63, "8080808080808080807f"},
	} {
		if got := appendSLEB(nil, c.v); !bytes.Equal(got, h(c.want)) {
			t.Errorf("SLEB(%d) = % x, want %s", c.v, got, c.want)
		}
	}
	for _, c := range []struct {
		v    uint64
		want string
	}{{0, "00"}, {127, "7f"}, {128, "8001"}, {300, "ac02"}, {1<<64 - 1, "ffffffffffffffffff01"}} {
		if got := appendULEB(nil, c.v); !bytes.Equal(got, h(c.want)) {
			t.Errorf("ULEB(%d) = % x, want %s", c.v, got, c.want)
		}
	}
}
