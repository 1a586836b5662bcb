package tracegen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
)

// LargeOptions shape a big synthetic trace for benchmarks.
type LargeOptions struct {
	Bytes    int    // approximate size of the regular v3 file
	Threads  int    // threads with records; 0 means 40
	Methods  int    // distinct methods; 0 means 3000
	MaxDepth int    // deepest stack; 0 means 60
	Seed     uint64 // the same seed gives the same trace
	// Interleaved gives the threads turns of one record (one in 32 of 2
	// to 4) instead of 64 to 255, so that nearly every record is of another thread than the
	// one before, as in files whose per-thread buffers were merged record
	// by record (the corpus's char_2_bytes.trace switches thread on 97 %
	// of its records).
	Interleaved bool
}

// Large returns a realistic dual-clock v3 trace of about o.Bytes bytes:
// threads take turns in chunks of records, as ART's per-thread buffers
// produce them, each walking a random call tree with a bounded set of
// distinct stacks. Every exit matches its enter, so the converter repairs
// nothing but the frames left open at the end.
func Large(o LargeOptions) *Trace {
	t := largeTables(&o)
	t.Records = make([]Record, 0, o.Bytes/dualRecordSize)
	largeRecords(t, o, func(r Record) error { t.Records = append(t.Records, r); return nil })
	return t
}

// WriteLarge writes the regular file of Large(o) to w without holding its
// records, for traces larger than memory should hold (1 GB and up).
func WriteLarge(w io.Writer, o LargeOptions) error {
	t := largeTables(&o)
	t.BareKey = true // num-method-calls and elapsed-time-usec are not known up front
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.Write(t.Key())
	bw.Write(t.header(3, dualRecordSize))
	rec := make([]byte, dualRecordSize)
	err := largeRecords(t, o, func(r Record) error {
		t.encodeRecord(rec, r, 3)
		_, err := bw.Write(rec)
		return err
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// Records is the number of records Large(o) and WriteLarge(o) make, for
// benchmarks that report a cost per record.
func (o LargeOptions) Records() int { return o.Bytes / dualRecordSize }

// BenchShape is one shape of the benchmarks' trace.
type BenchShape struct {
	Name string
	LargeOptions
}

// BenchShapes are the two shapes of the benchmarks' 100 MB trace:
// "chunked", threads taking turns of 64 to 255 records, as ART's
// per-thread buffers write them, and "interleaved", the thread changing on
// nearly every record.
func BenchShapes() []BenchShape {
	o := LargeOptions{Bytes: 100 << 20, Seed: 1}
	il := o
	il.Interleaved = true
	return []BenchShape{{"chunked", o}, {"interleaved", il}}
}

// largeTables fills in the defaults and makes the thread and method tables.
func largeTables(o *LargeOptions) *Trace {
	o.Threads = cmp0(o.Threads, 40)
	o.Methods = cmp0(o.Methods, 3000)
	o.MaxDepth = cmp0(o.MaxDepth, 60)
	t := &Trace{Version: 3, Clock: "dual", VM: "art", Start: 81_734_201_455,
		Options: []Option{{Key: "pid", Value: "4821"}}}
	for i := range o.Methods {
		t.Methods = append(t.Methods, Method{ID: uint32(i) << 2, Class: fmt.Sprintf("com.example.pkg%d.Class%d", i%37, i),
			Name: fmt.Sprintf("method%d", i%101), Signature: "(ILjava/lang/String;)V", Source: fmt.Sprintf("Class%d.java", i)})
	}
	for i := range o.Threads {
		t.Threads = append(t.Threads, Thread{ID: uint32(1000 + i), Name: fmt.Sprintf("worker-%d", i)})
	}
	return t
}

// largeRecords generates the records of a large trace, in file order.
func largeRecords(t *Trace, o LargeOptions, emit func(Record) error) error {
	rng := rand.New(rand.NewPCG(o.Seed, 0x5EED))
	type walker struct {
		stack     []uint32
		cpu, wall uint32
	}
	ws := make([]walker, o.Threads)
	var now uint32
	for n := o.Bytes / dualRecordSize; n > 0; {
		ti := rng.IntN(o.Threads)
		w := &ws[ti]
		w.wall = max(w.wall, now)
		turn := 64 + rng.IntN(192) // a chunk of one thread's records
		if o.Interleaved {
			turn = 1
			if rng.IntN(32) == 0 {
				turn = 2 + rng.IntN(3)
			}
		}
		for range min(n, turn) {
			n--
			w.cpu += uint32(rng.IntN(4))
			w.wall += uint32(1 + rng.IntN(6))
			r := Record{Thread: t.Threads[ti].ID, CPU: w.cpu, Wall: w.wall}
			// Real call trees are shallow most of the time (here around depth
			// 8), with rare deep excursions, and a method calls the same few
			// callees: entering gets less likely with depth, and a callee is
			// one of three fixed per caller, nearly always the first. The number of
			// distinct stacks so stays bounded instead of growing with n.
			d := len(w.stack)
			if d == 0 || d < o.MaxDepth && (rng.IntN(100) < 70-d*5/2 || rng.IntN(2000) == 0) {
				var parent uint32
				if d > 0 {
					parent = w.stack[d-1]
				}
				pick := uint32(0)
				if rng.IntN(16) == 0 {
					pick = uint32(rng.IntN(3))
				}
				m := (parent*31 + uint32(d)*7 + pick*1009) % uint32(o.Methods)
				w.stack = append(w.stack, m)
				r.Method, r.Action = m<<2, Enter
			} else {
				r.Method, r.Action = w.stack[d-1]<<2, Exit
				w.stack = w.stack[:d-1]
			}
			if err := emit(r); err != nil {
				return err
			}
		}
		now = w.wall
	}
	return nil
}

func cmp0(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

var (
	largeMu    sync.Mutex
	largeCache = map[LargeOptions][]byte{}
)

// LargeRegular returns Large(o) written as a regular file, made once per
// process for the same options (benchmarks in one binary share it).
func LargeRegular(o LargeOptions) []byte {
	largeMu.Lock()
	defer largeMu.Unlock()
	b, ok := largeCache[o]
	if !ok {
		b = Large(o).Regular()
		largeCache[o] = b
	}
	return b
}
