package convert

import (
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// A streaming file read once (parser.Options.SkipStreamingScan) defines its
// methods and threads between its records, and the parser's Reader adds
// each to the header's tables when it meets it, on the pass's goroutine,
// as it decodes the batch that holds it, and reports where among the
// batch's records it came (parser.Reader.Definitions). ART
// writes each definition before the first record that uses it, so the
// pass finds every record's method and thread defined. A file need not
// keep that order (docs/formats.md §8.4): a definition of a method or
// thread the pass has met is late, and its frame or thread, made from the
// tables as they were, is brought up to date in the Trace that Finish
// gets (refresh); the batches before keep the name it had. The output is then the one a scan
// before the pass would have given. Lateness goes by the definition's
// place in the file, never by when the Reader applied it: the Reader
// decodes a whole batch, and applies its definitions, before the pass
// takes the batch's first record.

// recordsAndDefinitions applies the policy to a batch of records, and
// notes the definitions met among them where they were met.
func (p *pass) recordsAndDefinitions(recs []parser.Record, defs []parser.Definition) {
	done := 0
	for i := range defs {
		p.records(recs[done:defs[i].At])
		done = defs[i].At
		p.define(&defs[i])
	}
	p.records(recs[done:])
}

// define notes a definition the Reader has added to the tables, at its
// place among the records. Only the pass that counts looks: a second pass
// finds the tables complete. A late one is noted for refresh, and ends the
// hope of a single read (runSpeculative), since timelines read names as the
// events come.
func (p *pass) define(d *parser.Definition) {
	if !p.mode.counts() {
		return
	}
	if d.IsThread {
		if th := p.lookup(d.Thread.ID); th == nil || th.skip {
			return
		}
		p.lateThreads = append(p.lateThreads, d.Thread.ID)
	} else {
		id, ok := p.frameOf(d.Method.ID)
		if !ok {
			return
		}
		p.lateFrames = append(p.lateFrames, id)
	}
	if p.mode == speculative {
		p.abandonSpeculation()
	}
}

// frameOf finds the frame of a method id the pass has met.
func (p *pass) frameOf(mid parser.MethodID) (stream.FrameID, bool) {
	if i := mid >> 2; i < denseLimit {
		if i < parser.MethodID(len(p.dense)) && p.dense[i] != 0 {
			return p.dense[i] - 1, true
		}
		return 0, false
	}
	id, ok := p.frames[mid]
	return id, ok
}

// remapFrame remakes a frame named by the mapping, and counts how the
// mapping resolved its method in the frame's place.
func (p *pass) remapFrame(id stream.FrameID, mid parser.MethodID) stream.Frame {
	fr, s, ok := newMappedFrame(id, mid, p.h, p.mapping)
	p.mapped[id] = 0
	if ok {
		p.deobf.Add(s)
		p.mapped[id] = uint8(s) + 1
	}
	return fr
}

// refresh completes the Trace after a pass that counts: it gives the
// threads their counts, remakes the frames and threads that a late
// definition changed, and corrects the counts of unknown ones. It runs
// after the pass (in firstPass and drive), once the exporters have taken
// the last batch, whose tables it would otherwise change under them.
func (p *pass) refresh() {
	if !p.mode.counts() {
		return
	}
	for _, th := range p.order {
		c, info := &th.counts, &p.t.Threads[th.idx]
		info.Events, info.MaxDepth, info.Orphans, info.OpenAtEnd = c.Events, c.MaxDepth, c.Orphans, c.OpenAtEnd
		info.LastCPU, info.LastWall = c.LastCPU, c.LastWall
	}
	h := p.h
	for _, id := range p.lateFrames {
		f := &p.t.Frames[id]
		mid := parser.MethodID(f.MethodID)
		var nf stream.Frame
		if p.mapping == nil {
			nf = tableFrame(id, mid, h)
		} else {
			if m := p.mapped[id]; m != 0 {
				p.deobf[m-1]--
			}
			nf = p.remapFrame(id, mid)
		}
		if nf.Listed && !f.Listed {
			p.stats.UnknownMethods--
		}
		*f = nf
	}
	for _, rid := range p.lateThreads {
		th := &p.t.Threads[p.lookup(rid).idx]
		if lt, ok := h.Thread(rid); ok {
			if !th.Listed {
				p.stats.UnknownThreads--
			}
			th.ID, th.Name, th.Listed = stream.ThreadID(lt.ID), lt.Name, true
		}
	}
	p.lateFrames, p.lateThreads = nil, nil
	p.t.Deobf = Deobf(p.mapping, p.deobf)
}
