package parser_test

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
)

// readOnce opens data with Options.SkipStreamingScan and reads it with
// batches of the given size (0: ReadRecord), noting the definitions the
// reader reports where it reports them. It returns the header as Open left
// it (a copy), the header after the read, the records, and, for each
// record, whether its method was defined when it was read.
func readOnce(t *testing.T, data []byte, batch int) (opened, h *parser.Header, evs []parser.Record, known []bool, err error) {
	t.Helper()
	f, err := parser.NewFile("test.trace", bytes.NewReader(data), int64(len(data)), parser.Options{SkipStreamingScan: true})
	if err != nil {
		return nil, nil, nil, nil, err
	}
	defer f.Close()
	opened = &parser.Header{Records: f.Header.Records, Methods: slices.Clone(f.Header.Methods), Threads: slices.Clone(f.Header.Threads)}
	r := f.NewReader()
	// The reader applies each definition to the header when it meets it,
	// ahead of the records of the batch before it: where the file defines
	// a method is where the reader reports the definition.
	defined := map[parser.MethodID]bool{}
	for _, m := range opened.Methods {
		defined[m.ID] = true
	}
	add := func(recs []parser.Record) {
		for _, ev := range recs {
			evs, known = append(evs, ev), append(known, defined[ev.Method])
		}
	}
	take := func(recs []parser.Record) {
		done := 0
		for _, d := range r.Definitions() {
			add(recs[done:d.At])
			done = d.At
			if !d.IsThread {
				defined[d.Method.ID] = true
			}
		}
		add(recs[done:])
	}
	for {
		var n int
		recs := make([]parser.Record, max(batch, 1))
		if batch == 0 {
			err = r.ReadRecord(&recs[0])
			if err == nil {
				n = 1
			}
		} else {
			n, err = r.ReadRecords(recs)
		}
		take(recs[:n])
		if err == io.EOF {
			return opened, f.Header, evs, known, nil
		}
		if err != nil {
			return opened, f.Header, evs, known, err
		}
	}
}

// sameTables compares two headers' tables and counts, which a scan and a
// read without one build in different orders.
func sameTables(a, b *parser.Header) bool {
	byID := func(h *parser.Header) ([]parser.Method, []parser.Thread) {
		ms, ths := slices.Clone(h.Methods), slices.Clone(h.Threads)
		slices.SortFunc(ms, func(x, y parser.Method) int { return cmp.Compare(x.ID, y.ID) })
		slices.SortFunc(ths, func(x, y parser.Thread) int { return cmp.Compare(x.ID, y.ID) })
		return ms, ths
	}
	am, at := byID(a)
	bm, bt := byID(b)
	return reflect.DeepEqual(am, bm) && reflect.DeepEqual(at, bt) &&
		a.Records == b.Records && a.DataEnd == b.DataEnd && a.LostBytes == b.LostBytes &&
		a.Clock == b.Clock && a.ClockFrom == b.ClockFrom && a.HasSummary == b.HasSummary &&
		reflect.DeepEqual(a.Options, b.Options) && reflect.DeepEqual(a.Warnings, b.Warnings)
}

// TestSkipStreamingScan: a streaming file read once, its definitions added
// as the reader reports them, gives the records and (once read) the header
// of a scanned one, for random traces with definitions before or after the
// records that use them, threads listed in the summary or not, and any
// batch size. Open reads no record: its tables hold only the summary's.
func TestSkipStreamingScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 300 {
		version := 2 + i%2
		tr := tracegen.Random(rng, version, map[int]string{2: "wall", 3: "dual"}[version])
		opt := tracegen.StreamOptions{SummaryThreads: rng.IntN(2) == 0, DefineAfterUse: rng.IntN(2) == 0}
		if rng.IntN(4) == 0 {
			opt.SkipThreadNames = map[uint32]bool{tr.Threads[0].ID: true}
		}
		data := tr.Streaming(opt)
		want, wantEvs, err := readAll(t, data, parser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, batch := range []int{0, 1, 7, 1024} {
			opened, h, evs, known, err := readOnce(t, data, batch)
			if err != nil {
				t.Fatalf("trace %d, batch %d: %v", i, batch, err)
			}
			if opened.Records != 0 || len(opened.Methods) != 0 || (len(opened.Threads) != 0) != opt.SummaryThreads {
				t.Fatalf("trace %d: Open read records: %d records, %d methods, %d threads",
					i, opened.Records, len(opened.Methods), len(opened.Threads))
			}
			if !sameTables(h, want) {
				t.Fatalf("trace %d, batch %d: header\n%+v\nscanned\n%+v", i, batch, h, want)
			}
			for j := range evs {
				evs[j].Offset = 0
			}
			if !slices.Equal(evs, wantEvs) {
				t.Fatalf("trace %d, batch %d: %d records, scanned %d", i, batch, len(evs), len(wantEvs))
			}
			// A method is defined where the file defines it: before the
			// first record that uses it, or just after.
			seen := map[parser.MethodID]bool{}
			for j, ev := range evs {
				if _, ok := h.Method(ev.Method); !ok || seen[ev.Method] {
					continue
				}
				seen[ev.Method] = true
				if known[j] == opt.DefineAfterUse {
					t.Fatalf("trace %d, batch %d: record %d's method defined when read: %v", i, batch, j, known[j])
				}
				if j+1 < len(evs) && evs[j+1].Method == ev.Method && !known[j+1] {
					t.Fatalf("trace %d, batch %d: record %d's method not defined after it", i, batch, j)
				}
			}
		}
	}
}

// TestSkipStreamingScanEdges: files whose summary is not where ART puts it
// are scanned; a record that runs into the summary is lost; a second
// reader gets no definitions, the first having reported them.
func TestSkipStreamingScanEdges(t *testing.T) {
	tr := tracegen.Small(3, "dual", "art")
	data := tr.Streaming(tracegen.StreamOptions{})
	sum := bytes.LastIndex(data, []byte{0, 0, 3})
	for name, d := range map[string][]byte{
		"no summary":         tr.Streaming(tracegen.StreamOptions{NoSummary: true}),
		"cut summary":        data[:len(data)-1],
		"bytes after it":     append(bytes.Clone(data), 1, 2, 3),
		"blank line first":   blankFirst(data, sum),
		"summary in summary": nestedSummary(data, sum),
	} {
		f, err := parser.NewFile("t", bytes.NewReader(d), int64(len(d)), parser.Options{SkipStreamingScan: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(f.Header.Methods) == 0 || f.Header.Records == 0 {
			t.Errorf("%s: not scanned: %d methods, %d records", name, len(f.Header.Methods), f.Header.Records)
		}
		f.Close()
	}

	// Five bytes more before the summary: the last "record" runs into it.
	cut := append(append(bytes.Clone(data[:sum]), 9, 9, 9, 9, 9), data[sum:]...)
	binary.LittleEndian.PutUint32(cut[sum+5+3:], binary.LittleEndian.Uint32(data[sum+3:]))
	for _, batch := range []int{0, 7} {
		_, h, evs, _, err := readOnce(t, cut, batch)
		if err != nil {
			t.Fatal(err)
		}
		if h.LostBytes != 5 || h.DataEnd != int64(sum) || int(h.Records) != len(tr.Records) || !slices.Equal(clearOffsets(evs), expected(tr, parser.ClockDual)) {
			t.Errorf("batch %d, a record into the summary: %d lost, data end %d (want %d), %d records", batch, h.LostBytes, h.DataEnd, sum, h.Records)
		}
	}

	// A second summary after the first, as in two files joined: the
	// records stop at the first, as in a scan, with a warning.
	twice := append(bytes.Clone(data), data[32:]...)
	want, wantEvs, err := readAll(t, twice, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, h, evs, _, err := readOnce(t, twice, 7)
	if err != nil {
		t.Fatal(err)
	}
	if h.DataEnd != want.DataEnd || h.Records != want.Records || !slices.Equal(clearOffsets(evs), wantEvs) ||
		len(h.Warnings) != 1 || !strings.HasPrefix(h.Warnings[0], fmt.Sprintf("ignored %d bytes after the streaming summary at offset %d;", len(data)-32, sum)) {
		t.Errorf("two summaries: data end %d, %d records, warnings %q; scanned %d, %d, %q",
			h.DataEnd, h.Records, h.Warnings, want.DataEnd, want.Records, want.Warnings)
	}

	f, err := parser.NewFile("t", bytes.NewReader(data), int64(len(data)), parser.Options{SkipStreamingScan: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counts := [2]int{}
	for i := range counts {
		r := f.NewReader()
		evs := make([]parser.Record, 3)
		for {
			_, err := r.ReadRecords(evs)
			counts[i] += len(r.Definitions())
			if err != nil {
				break
			}
		}
	}
	if counts[0] == 0 || counts[1] != 0 || f.Header.Records != int64(len(tr.Records)) {
		t.Errorf("definitions: %d by the first reader, %d by the second; %d records", counts[0], counts[1], f.Header.Records)
	}
}

// nestedSummary appends to the summary's text, after its *end, a summary
// item of its own, which also reaches the end of the file.
func nestedSummary(data []byte, sum int) []byte {
	inner := "*version\n3\nclock=wall\n*end\n"
	b := bytes.Clone(data)
	b = append(b, 0, 0, 3)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(inner)))
	b = append(b, inner...)
	binary.LittleEndian.PutUint32(b[sum+3:], uint32(len(b)-sum-7))
	return b
}

// blankFirst puts a blank line before the summary's *version line.
func blankFirst(data []byte, sum int) []byte {
	b := bytes.Clone(data[:sum+3])
	b = binary.LittleEndian.AppendUint32(b, binary.LittleEndian.Uint32(data[sum+3:])+1)
	return append(append(b, '\n'), data[sum+7:]...)
}

func clearOffsets(evs []parser.Record) []parser.Record {
	for i := range evs {
		evs[i].Offset = 0
	}
	return evs
}
