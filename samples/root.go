package samples

import (
	"fmt"
	"regexp"
	"slices"
)

// EmptyStackName names the one frame the outputs give a sample without a
// Java frame (hprof's "<empty>" traces), which has an empty Stack: Root
// matches it against this name, as the outputs show it.
const EmptyStackName = "(no Java frames)"

// Kept says what a focus kept of a profile against the whole: counts
// (samples, or calls for JVMHprofTimes) and, for JVMHprofTimes, CPU time.
// The whole counts the unlisted samples too.
type Kept struct {
	Count, TotalCount         int64
	TimeNanos, TotalTimeNanos int64
}

// Root keeps only what ran inside a frame whose name (Frame.Name, as
// --mapping named it) re matches, unanchored, as the method traces' --root
// does: in each stack the outermost matching frame becomes the root and
// the frames outside it go; a stack without a match goes, and so do the
// unlisted counts, which are in no stack. A match inside the root
// (recursion) stays a frame of the stack, so it counts once. An empty
// stack stays when re matches EmptyStackName. Samples of
// one thread whose stacks become equal merge into the first of them,
// their counts and times added; the frames no stack uses any more go, and
// the rest are renumbered in order of first use, so the profile keeps the
// invariants Check verifies.
//
// A stack the profiler cut at its depth limit (CutStack) may have had a
// match above the cut; it starts at the first match the file shows. As
// the kept stacks no longer end at the limit, DepthLimited is cleared and
// a note says how many such stacks were kept.
func (p *Profile) Root(re *regexp.Regexp) Kept {
	var k Kept
	match := make([]bool, len(p.Frames))
	for i := range p.Frames {
		match[i] = re.MatchString(p.Frames[i].Name)
	}
	emptyMatch := re.MatchString(EmptyStackName)
	type key struct {
		thread int
		stack  string // the frame indices, 4 bytes each
	}
	index := make(map[key]int)
	var buf []byte
	kept, cut := p.Samples[:0], 0
	for i, s := range p.Samples {
		addCount(&k.TotalCount, s.Count)
		addCount(&k.TotalTimeNanos, s.TimeNanos)
		j := slices.IndexFunc(s.Stack, func(f int) bool { return match[f] })
		if len(s.Stack) == 0 && emptyMatch {
			j = 0
		}
		if j < 0 {
			continue
		}
		if p.CutStack(i) {
			cut++
		}
		addCount(&k.Count, s.Count)
		addCount(&k.TimeNanos, s.TimeNanos)
		s.Stack = s.Stack[j:]
		buf = buf[:0]
		for _, f := range s.Stack {
			buf = append(buf, byte(f), byte(f>>8), byte(f>>16), byte(f>>24))
		}
		kk := key{s.Thread, string(buf)}
		if at, ok := index[kk]; ok {
			// Check bounds the sums of all samples, so these cannot overflow.
			kept[at].Count += s.Count
			kept[at].TimeNanos += s.TimeNanos
			continue
		}
		index[kk] = len(kept)
		kept = append(kept, s)
	}
	clear(p.Samples[len(kept):])
	p.Samples = kept
	for _, u := range p.Unlisted {
		addCount(&k.TotalCount, u.Count)
	}
	p.Unlisted = nil
	p.keepUsedFrames()
	if p.DepthLimited {
		p.DepthLimited = false
		if cut > 0 {
			p.Notes = append(p.Notes, fmt.Sprintf("--root: %d of the kept stacks reached the profiler's depth limit, so a match above the cut is unknown: they start at the first match the file shows", cut))
		}
	}
	return k
}

// keepUsedFrames drops the frames no stack uses, renumbers the rest in
// order of first use (stacks root first) and sets MaxDepth.
func (p *Profile) keepUsedFrames() {
	renum := make([]int, len(p.Frames)) // new index + 1; 0: not used yet
	var frames []Frame
	p.MaxDepth = 0
	for i := range p.Samples {
		s := &p.Samples[i]
		// A fresh stack: samples made by hand may share one.
		stack := make([]int, len(s.Stack))
		for j, f := range s.Stack {
			if renum[f] == 0 {
				frames = append(frames, p.Frames[f])
				renum[f] = len(frames)
			}
			stack[j] = renum[f] - 1
		}
		s.Stack = stack
		p.MaxDepth = max(p.MaxDepth, len(stack))
	}
	p.Frames = frames
}
