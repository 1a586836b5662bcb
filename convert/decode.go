package convert

import (
	"io"

	"github.com/atrace2/atrace2/parser"
)

// read decodes the records and applies the policy to them on the caller's
// goroutine, batchSize records at a time, whether or not the exporters run
// on a goroutine of their own (pipeline.go). A batch (40 KiB) stays in the
// core's L1 and L2 caches from its decoding to its last use.
//
// Decoding is a small part of a record's cost (parser's
// BenchmarkReadRecords). On a goroutine of its own it cost more CPU time
// than it took off the policy's: every record (40 bytes) then crossed
// from one core's cache to the other's, and the goroutines parked and
// woke on each batch; with three busy goroutines on two cores, one
// always waited for a core (BenchmarkAnalyze and stacks'
// BenchmarkAggregate, cpu-ns/record at -cpu 2).
func (p *pass) read(r *parser.Reader) error {
	batch := make([]parser.Record, batchSize)
	for {
		if p.progress != nil {
			p.progress(p.done+r.Offset(), p.total)
		}
		n, err := r.ReadRecords(batch)
		p.recordsAndDefinitions(batch[:n], r.Definitions())
		if p.err != nil {
			return p.err
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
