package convert

import (
	"sync/atomic"

	"github.com/atrace2/atrace2/stream"
)

// pipeline runs the exporters on a goroutine of their own: the stack
// policy fills one batch of events while the exporters take the previous
// one. A few buffers circulate, so memory stays fixed.
type pipeline struct {
	exps   []stream.Exporter
	full   chan batch
	free   chan []stream.Event
	done   chan struct{}
	err    error // the first exporter error; read after done
	failed atomic.Bool

	// tables, in a speculative read (runSpeculative), is the copy of the Trace the
	// exporters got at Begin. Before each batch, on the exporters'
	// goroutine, its tables are brought up to date with the pass's, to
	// which the pass goes on appending.
	tables *stream.Trace
}

// batch is a batch of events and, in a speculative read, the tables as they
// were when it was handed over.
type batch struct {
	evs     []stream.Event
	threads []stream.Thread
	frames  []stream.Frame
}

// pipelineBuffers is how many batches circulate: one being filled, one
// being exported, and one of slack for uneven batches.
const pipelineBuffers = 3

// pipeBatch is the number of events in a batch: 32Ki events (1 MiB) per
// hand-over, so the exporters' goroutine seldom parks waiting for one;
// small batches make the pipeline slower than none (BenchmarkConvert).
const pipeBatch = 1 << 15

func newPipeline(exps []stream.Exporter, tables *stream.Trace) *pipeline {
	q := &pipeline{
		exps:   exps,
		tables: tables,
		full:   make(chan batch, pipelineBuffers),
		free:   make(chan []stream.Event, pipelineBuffers),
		done:   make(chan struct{}),
	}
	for range pipelineBuffers - 1 {
		q.free <- make([]stream.Event, 0, pipeBatch)
	}
	go q.consume()
	return q
}

// swap hands a full batch to the exporters, with the pass's tables t, and
// returns an empty one. Slices of the tables stay valid as the pass
// appends: it never changes a frame once added, nor a thread's Index, ID,
// Name or Listed (finish writes its counts, which exporters read only at
// Finish). It reports false once an exporter has failed.
func (q *pipeline) swap(b []stream.Event, t *stream.Trace) ([]stream.Event, bool) {
	q.full <- batch{b, t.Threads, t.Frames}
	return <-q.free, !q.failed.Load()
}

// close waits for the exporters to take every batch handed over.
func (q *pipeline) close() error {
	close(q.full)
	<-q.done
	return q.err
}

func (q *pipeline) consume() {
	defer close(q.done)
	for b := range q.full {
		if q.tables != nil {
			q.tables.Threads, q.tables.Frames = b.threads, b.frames
		}
		if q.err == nil {
			if err := deliver(q.exps, b.evs); err != nil {
				q.err = err
				q.failed.Store(true)
			}
		}
		q.free <- b.evs[:0]
	}
}

// deliver gives a batch of events to every exporter.
func deliver(exps []stream.Exporter, b []stream.Event) error {
	for _, e := range exps {
		if err := e.Events(b); err != nil {
			return err
		}
	}
	return nil
}
