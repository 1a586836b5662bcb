package samples_test

import (
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/atrace2/atrace2/samples"
)

// TestManyRowsMemory checks that the hprof reader adds up CPU rows as it
// reads them: its live heap, measured once the last of 300,000 rows naming
// one trace has been read, stays under 2 MB, where keeping the rows took
// 48 bytes each (14 MB).
func TestManyRowsMemory(t *testing.T) {
	const rows = 300_000
	r := &rowsReader{rows: rows}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	p, err := samples.Read(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Samples) != 1 || p.Samples[0].Count != 2*rows || p.Total != 2*rows {
		t.Fatalf("got %d samples, total %d, want one of %d", len(p.Samples), p.Total, 2*rows)
	}
	if !r.measured {
		t.Fatal("the reader's heap was not measured")
	}
	grown := int64(r.live) - int64(before.HeapAlloc)
	t.Logf("live heap after %d rows: %d bytes more than before", rows, grown)
	if grown > 2<<20 {
		t.Errorf("after reading %d rows naming one trace the live heap grew by %d bytes, want at most 2 MB", rows, grown)
	}
}

// rowsReader generates Dalvik hprof text: one TRACE and a CPU SAMPLES
// section of rows naming it. When it has handed out the last row it
// measures the live heap, as the reader holds it then.
type rowsReader struct {
	rows, i  int
	buf      []byte
	live     uint64
	measured bool
}

func (r *rowsReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		switch {
		case r.i == 0:
			r.buf = fmt.Appendf(r.buf, "TRACE 300001: (thread=200001)\n\ta.B.c(B.java:1)\nCPU SAMPLES BEGIN (total = %d) Wed Jul 21 12:03:46 2010\n", 2*r.rows)
			r.i++
		case r.i <= r.rows:
			for ; r.i <= r.rows && len(r.buf) < 32<<10; r.i++ {
				r.buf = fmt.Appendf(r.buf, "%d 0.00%% 0.00%% 2 300001 a.B.c\n", r.i)
			}
		case r.i == r.rows+1:
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			r.live, r.measured = m.HeapAlloc, true
			r.buf = append(r.buf, "CPU SAMPLES END\n"...)
			r.i++
		default:
			return 0, io.EOF
		}
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}
