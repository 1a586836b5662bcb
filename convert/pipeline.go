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
	full   chan stream.Batch
	free   chan []stream.Event
	done   chan struct{}
	err    error // the first exporter error; read after done
	failed atomic.Bool
	batch  stream.Batch // the batch being exported: a field, so that handing it over allocates nothing
}

// pipelineBuffers is how many batches circulate: one being filled, one
// being exported, and one of slack for uneven batches.
const pipelineBuffers = 3

// pipeBatch is the number of events in a batch: 32Ki events (1 MiB) per
// hand-over, so the exporters' goroutine seldom parks waiting for one;
// small batches make the pipeline slower than none (BenchmarkConvert).
const pipeBatch = 1 << 15

func newPipeline(exps []stream.Exporter) *pipeline {
	q := &pipeline{
		exps: exps,
		full: make(chan stream.Batch, pipelineBuffers),
		free: make(chan []stream.Event, pipelineBuffers),
		done: make(chan struct{}),
	}
	for range pipelineBuffers - 1 {
		q.free <- make([]stream.Event, 0, pipeBatch)
	}
	go q.consume()
	return q
}

// swap hands a full batch to the exporters and returns an empty events
// buffer. It reports false once an exporter has failed.
func (q *pipeline) swap(b stream.Batch) ([]stream.Event, bool) {
	q.full <- b
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
	for q.batch = range q.full {
		if q.err == nil {
			if err := deliver(q.exps, &q.batch); err != nil {
				q.err = err
				q.failed.Store(true)
			}
		}
		q.free <- q.batch.Events[:0]
	}
	q.batch = stream.Batch{}
}

// deliver gives a batch to every exporter.
func deliver(exps []stream.Exporter, b *stream.Batch) error {
	for _, e := range exps {
		if err := e.Events(b); err != nil {
			return err
		}
	}
	return nil
}
