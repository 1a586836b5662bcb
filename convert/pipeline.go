package convert

import (
	"sync/atomic"

	"github.com/atrace2/atrace2/convert/stream"
)

// batchSize is the number of events handed over at once: large enough that
// the channel costs nothing per event, small enough to stay in cache.
const batchSize = 4096

// pipeline runs the exporters on a second goroutine: decoding and the stack
// policy fill a batch on one core while the exporters drain the previous
// batch on the other. Three buffers circulate, so memory stays fixed.
type pipeline struct {
	exps   []stream.Exporter
	batch  []stream.Event
	full   chan []stream.Event
	free   chan []stream.Event
	done   chan struct{}
	err    error // the first exporter error; read after done
	failed atomic.Bool
}

func newPipeline(exps []stream.Exporter) *pipeline {
	q := &pipeline{
		exps: exps,
		full: make(chan []stream.Event, 2),
		free: make(chan []stream.Event, 3),
		done: make(chan struct{}),
	}
	for range 2 {
		q.free <- make([]stream.Event, 0, batchSize)
	}
	q.batch = make([]stream.Event, 0, batchSize)
	go q.consume()
	return q
}

// add queues one event; it reports false once an exporter has failed.
func (q *pipeline) add(ev *stream.Event) bool {
	q.batch = append(q.batch, *ev)
	if len(q.batch) == batchSize {
		q.full <- q.batch
		q.batch = <-q.free
	}
	return !q.failed.Load()
}

// close sends what is left and waits for the exporters to take it.
func (q *pipeline) close() error {
	if len(q.batch) > 0 {
		q.full <- q.batch
	}
	close(q.full)
	<-q.done
	return q.err
}

func (q *pipeline) consume() {
	defer close(q.done)
	for b := range q.full {
		if q.err == nil {
			q.deliver(b)
		}
		q.free <- b[:0]
	}
}

func (q *pipeline) deliver(b []stream.Event) {
	for i := range b {
		for _, e := range q.exps {
			if err := e.Event(&b[i]); err != nil {
				q.err = err
				q.failed.Store(true)
				return
			}
		}
	}
}
