package convert

import (
	"io"
	"slices"

	"github.com/atrace2/atrace2/parser"
)

// decodeBatch is the number of records the decoding goroutine hands over
// at once: large enough that the hand-over costs nothing per record, and
// that the consumer does not park and wake on every batch
// (BenchmarkAnalyze, BenchmarkConvert).
const decodeBatch = 1 << 14

// decodeBuffers is how many batches circulate between the goroutines.
const decodeBuffers = 4

// decoded is one batch of records from the decoding goroutine.
type decoded struct {
	recs   []parser.Record
	defs   []parser.Definition // met among recs (a streaming file read once)
	offset int64               // the reader's offset after the batch
	err    error               // the reader's error after the batch, io.EOF at the end
}

// decoder reads records on a goroutine of its own, so that decoding and
// the stack policy run on two cores.
type decoder struct {
	full chan decoded
	free chan []parser.Record
	stop chan struct{}
}

func startDecoder(r *parser.Reader) *decoder {
	d := &decoder{
		full: make(chan decoded, decodeBuffers),
		free: make(chan []parser.Record, decodeBuffers),
		stop: make(chan struct{}),
	}
	for range decodeBuffers {
		d.free <- make([]parser.Record, decodeBatch)
	}
	go d.decode(r)
	return d
}

func (d *decoder) decode(r *parser.Reader) {
	defer close(d.full)
	for {
		var buf []parser.Record
		select {
		case buf = <-d.free:
		case <-d.stop:
			return
		}
		n, err := r.ReadRecords(buf[:cap(buf)])
		// Definitions are rare (one per method and thread): copying them
		// costs nothing, and an empty copy allocates nothing.
		defs := slices.Clone(r.Definitions())
		select {
		case d.full <- decoded{buf[:n], defs, r.Offset(), err}:
		case <-d.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// close stops the goroutine and waits until it has stopped using the
// reader.
func (d *decoder) close() {
	close(d.stop)
	for range d.full {
	}
}

// readParallel applies the policy to records decoded on a second goroutine.
func (p *pass) readParallel(r *parser.Reader) error {
	d := startDecoder(r)
	defer d.close()
	for b := range d.full {
		p.recordsAndDefinitions(b.recs, b.defs)
		d.free <- b.recs[:cap(b.recs)]
		if p.progress != nil {
			p.progress(p.done+b.offset, p.total)
		}
		if p.err != nil {
			return p.err
		}
		if b.err == io.EOF {
			return nil
		}
		if b.err != nil {
			return b.err
		}
	}
	return nil
}

// readSerial decodes and applies the policy on the caller's goroutine.
func (p *pass) readSerial(r *parser.Reader) error {
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
