package convert

import (
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// The thread filter (Options.Threads) is applied where records are handed
// to the policy: a batch is cut into runs of one thread, and the runs of
// threads the filter drops never reach it (keptRecords). The check is made
// once per thread, when pass.thread first meets it; a dropped thread's
// state is marked skip and gets no stream.ThreadIndex. Without a filter,
// records goes straight to the policy's loop, unchanged.

// keptRecords applies the policy to the records of the kept threads of a
// batch, and drops the others'.
func (p *pass) keptRecords(batch []parser.Record) {
	for len(batch) > 0 {
		rid := batch[0].Thread
		n := 1
		for n < len(batch) && batch[n].Thread == rid {
			n++
		}
		run := batch[:n]
		batch = batch[n:]
		th := p.thread(rid)
		if th == nil {
			continue // the trace changed
		}
		if th.skip {
			p.skipped(th, run)
			continue
		}
		p.policyRecords(run)
	}
}

// skipped passes over a dropped thread's records. A counting pass still
// reads their wall times, so that the trace end (Trace.WallEnd, taken from
// every thread's clock by pass.wallEnd), where the kept threads' open
// frames end, is the whole trace's; what the clocks needed repairing is
// not counted.
func (p *pass) skipped(th *threadState, run []parser.Record) {
	if !p.mode.counts() {
		return
	}
	var uncounted stream.Stats
	for i := range run {
		if run[i].Action != parser.BadAction {
			th.wall.next(run[i].Wall, p.wrap32, &uncounted)
		}
	}
}
