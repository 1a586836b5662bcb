package samples

import (
	"fmt"

	"github.com/atrace2/atrace2/stacks"
	"github.com/atrace2/atrace2/stream"
)

// Tree builds the call tree of p, the one model every view reads
// (stacks.Tree): one node per distinct (thread, stack prefix), each stack's
// count on its node (Counted), or for JVMHprofTimes its calls and elapsed
// time (Timed, on the wall clock: hprof measures cpu=times with the time of
// day, not thread CPU time; docs/formats.md §17). p must satisfy Check
// (Read's profiles do). name is the input's name, as stream.Trace.Name is.
//
// The tree's trace has one stream.Frame per p.Frames entry, at the same
// index, plus EmptyStackName when a stack is empty; Frame.Line is the line
// that was running (stacks.Values.RunningLines), not the method's first
// line. Its threads are the threads that have samples, in p.Threads
// order, named "thread <id>" when the file gives no name, with the file's
// serial number as id (stacks.Values.Serials), then
// stacks.UnknownThreadName for samples without a thread. The tree's
// Source holds what the file states beyond its stacks.
func (p *Profile) Tree(name string) (*stacks.Tree, error) {
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("sampled profile: invariant violation: %w", err)
	}
	t := &stream.Trace{Name: name, HasWall: p.Format == JVMHprofTimes}
	v := stacks.Values{Kind: stacks.Counted, RunningLines: true, Serials: true}
	if t.HasWall {
		v.Kind = stacks.Timed
	}
	if p.Format.Timed() {
		// Thread ids are the system's tids, and a sample stands for the
		// period's CPU time when the file states one.
		v.Serials, v.Period = false, p.PeriodNanos
		if len(p.Processes) > 0 {
			t.Process.PID = int(p.Processes[p.Process].PID)
		}
		t.Process.Elapsed = p.EndNanos - p.StartNanos
	}
	t.Frames = p.streamFrames()
	b := stacks.NewStackBuilder(t, v, p.source())
	// Every frame of every stack is at most one node: room for that.
	size := len(p.Threads) + 1
	for _, smp := range p.Samples {
		size += max(len(smp.Stack), 1)
	}
	b.Grow(size)
	threadOf := p.treeThreads(b)
	empty := stream.FrameID(-1)
	for _, smp := range p.Samples {
		cur := b.Root(threadOf[smp.Thread+1])
		for _, f := range smp.Stack {
			cur = b.Child(cur, stream.FrameID(f))
		}
		if len(smp.Stack) == 0 {
			if empty < 0 {
				empty = stream.FrameID(len(t.Frames))
				name := p.EmptyStackName()
				t.Frames = append(t.Frames, stream.Frame{ID: empty, Name: name, Method: name})
			}
			cur = b.Child(cur, empty)
		}
		b.Count(cur, smp.Count, smp.TimeNanos, smp.Count)
	}
	return b.Tree(), nil
}

// streamFrames are the profile's frames as the stream and the tree name
// them, one per p.Frames entry, at the same index. A frame of code that is
// no Java method (FrameKind) keeps its library, build id and symbol in
// Code; a Java frame's library (a compiled, JIT-compiled or interpreted
// copy of the method) is left out: the copies of a method are one method.
func (p *Profile) streamFrames() []stream.Frame {
	frames := make([]stream.Frame, 0, len(p.Frames)+1)
	for _, f := range p.Frames {
		sf := stream.Frame{
			ID: stream.FrameID(len(frames)), Name: f.Name, Class: f.Class, Method: f.Method, Signature: f.Signature,
			File: stream.SourcePath(f.Class, f.File), Line: f.Line, HasLine: f.HasLine, Listed: true,
			Obfuscated: f.Obfuscated, ObfuscatedSignature: f.ObfuscatedSignature, Synthesized: f.Synthesized,
		}
		if f.Kind != JavaFrame {
			sf.Code = &stream.Code{Kind: codeKinds[f.Kind], Library: f.Library, BuildID: f.BuildID, Symbol: f.Symbol}
		}
		frames = append(frames, sf)
	}
	return frames
}

var codeKinds = [...]stream.CodeKind{NativeFrame: stream.CodeNative, KernelFrame: stream.CodeKernel,
	OtherFrame: stream.CodeOther, UnknownFrame: stream.CodeUnknown}

// EmptyStackName names the one frame the outputs give a sample with an
// empty stack: EmptyStackName, or for the formats of timed samples, whose
// stacks are not only Java frames, "(no frames)".
func (p *Profile) EmptyStackName() string {
	if p.Format.Timed() {
		return EmptyTimedStackName
	}
	return EmptyStackName
}

// treeThreads adds the threads that have samples to b, and returns the
// tree's index of each profile thread index + 1 (index 0 stands for "no
// thread"); -1 for threads without samples.
func (p *Profile) treeThreads(b *stacks.StackBuilder) []stream.ThreadIndex {
	used := make([]bool, len(p.Threads)+1)
	for _, smp := range p.Samples {
		used[smp.Thread+1] = true
	}
	index := make([]stream.ThreadIndex, len(used))
	for i := range index {
		index[i] = -1
	}
	for i := 1; i < len(used); i++ {
		if used[i] {
			th := &p.Threads[i-1]
			index[i] = b.AddThread(stream.Thread{ID: threadID(th.ID), Name: th.ThreadName(), Listed: th.Name != ""}, false)
		}
	}
	if used[0] {
		index[0] = b.AddThread(stream.Thread{Name: stacks.UnknownThreadName}, true)
	}
	return index
}

// threadID keeps an hprof serial number in stream.Thread's 32 bits; the
// writers number threads from small values, so nothing is lost in practice.
func threadID(id int64) stream.ThreadID {
	if id < 0 || id > 1<<32-1 {
		return 0
	}
	return stream.ThreadID(id)
}

// source is what the profile states beyond its stacks, for the tree.
func (p *Profile) source() *stacks.Source {
	s := &stacks.Source{
		Format: p.Format.String(), Created: p.Created, Stacks: len(p.Samples),
		StatedCount: p.Total, StatedTimeNanos: p.TotalTimeNanos, Frames: len(p.Frames),
		MaxDepth: p.MaxDepth, DepthLimited: p.DepthLimited, Truncated: p.Truncated,
		Notes: append([]string{}, p.Notes...),
	}
	s.CutWhy = fmt.Sprintf("stacks are cut at depth=%d (hprof's depth= option, 4 by default, inferred from the deepest stack)", p.MaxDepth)
	if p.Format == ARTProfileBoundedStack {
		s.CutWhy = fmt.Sprintf("ART's bounded-stack mode records a few callers only (the deepest stack has %d frames)", p.MaxDepth)
	}
	for _, u := range p.Unlisted {
		s.Unlisted = append(s.Unlisted, stacks.Unlisted(u))
	}
	if p.Format.Timed() {
		s.Timeline, s.Process, s.Period, s.SpanNanos = true, p.Process, p.Period, p.EndNanos-p.StartNanos
		for _, pr := range p.Processes {
			s.Processes = append(s.Processes, stacks.SourceProcess(pr))
		}
		for _, r := range p.Repairs {
			s.Repairs = append(s.Repairs, stacks.Repair(r))
		}
	}
	s.Threads = make([]stacks.SourceThread, len(p.Threads), len(p.Threads)+1)
	for i, th := range p.Threads {
		s.Threads[i] = stacks.SourceThread{ID: th.ID, Name: th.Name, Group: th.Group, Listed: true}
	}
	var none stacks.SourceThread
	for i, smp := range p.Samples {
		row := &none
		if smp.Thread >= 0 {
			row = &s.Threads[smp.Thread]
		}
		row.Stacks++
		row.Count += smp.Count
		row.TimeNanos += smp.TimeNanos
		s.Count += smp.Count
		s.TimeNanos += smp.TimeNanos
		if p.CutStack(i) {
			s.CutStacks++
		}
	}
	if none.Stacks > 0 {
		none.Name = stacks.UnknownThreadName
		s.Threads = append(s.Threads, none)
	}
	return s
}
