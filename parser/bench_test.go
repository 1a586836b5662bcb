package parser_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
)

// large is a generated 100 MB v3 trace, made once per test binary.
func large() []byte {
	return tracegen.LargeRegular(tracegen.LargeOptions{Bytes: 100 << 20, Seed: 1})
}

// openBytes opens data as a trace file named "large".
func openBytes(b *testing.B, data []byte) *parser.File {
	f, err := parser.NewFile("large", bytes.NewReader(data), int64(len(data)), parser.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return f
}

// BenchmarkReadRecord decodes every record of a 100 MB trace; the per-record
// loop must not allocate.
func BenchmarkReadRecord(b *testing.B) {
	data := large()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		f := openBytes(b, data)
		r := f.NewReader()
		var rec parser.Record
		n := 0
		for {
			err := r.ReadRecord(&rec)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if int64(n) != f.Header.Records {
			b.Fatalf("read %d of %d records", n, f.Header.Records)
		}
		f.Close()
	}
}

// BenchmarkReadRecords decodes the same trace in batches, as the converter
// does, in each shape (tracegen.BenchShapes).
func BenchmarkReadRecords(b *testing.B) {
	for _, sh := range tracegen.BenchShapes() {
		b.Run(sh.Name, func(b *testing.B) { benchReadRecords(b, sh.LargeOptions) })
	}
}

func benchReadRecords(b *testing.B, o tracegen.LargeOptions) {
	data := tracegen.LargeRegular(o)
	defer testutil.PerRecord(b, o.Records())()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	batch := make([]parser.Record, 1024)
	for b.Loop() {
		f := openBytes(b, data)
		r := f.NewReader()
		var n int64
		for {
			k, err := r.ReadRecords(batch)
			n += int64(k)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		if n != f.Header.Records {
			b.Fatalf("read %d of %d records", n, f.Header.Records)
		}
		f.Close()
	}
}

// BenchmarkOpenStreaming opens a 100 MB streaming trace: the scan for the
// method and thread items and the summary, which walks every record.
func BenchmarkOpenStreaming(b *testing.B) {
	data := tracegen.Large(tracegen.LargeOptions{Bytes: 100 << 20, Seed: 1}).Streaming(tracegen.StreamOptions{})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		f := openBytes(b, data)
		if f.Header.Records == 0 {
			b.Fatal("no records")
		}
		f.Close()
	}
}
