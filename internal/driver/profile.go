package driver

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/atrace2/atrace2/mapping"
	"github.com/atrace2/atrace2/samples"
)

// The focus and the mapping of a sampled profile, applied to the profile
// before it becomes a tree (readSampled): each keeps the invariants
// samples.Profile.Check verifies.

// keepThreads keeps only the samples of the threads keep accepts (a
// thread filter, --thread): the samples of other threads and those
// without a thread go, and so do the unlisted counts, which belong to no
// thread. The frames no kept sample uses go too, the others keeping their
// order, and MaxDepth becomes the deepest kept stack's. It returns how many
// of the threads with samples were kept; the samples without a thread
// count as one thread.
func keepThreads(p *samples.Profile, keep func(th *samples.Thread) bool) (kept, total int) {
	status := make([]int8, len(p.Threads)+1) // by Thread+1: 0 unseen, 1 kept, -1 dropped
	out := p.Samples[:0]
	for _, s := range p.Samples {
		st := &status[s.Thread+1]
		if *st == 0 {
			*st = -1
			if s.Thread >= 0 && keep(&p.Threads[s.Thread]) {
				*st = 1
				kept++
			}
			total++
		}
		if *st > 0 {
			out = append(out, s)
		}
	}
	clear(p.Samples[len(out):])
	p.Samples, p.Unlisted = out, nil
	keepUsedFrames(p)
	return kept, total
}

// rootKept says what a focus kept of a profile against the whole: counts
// (samples, or calls for JVMHprofTimes) and, for JVMHprofTimes, time.
// The whole counts the unlisted samples too.
type rootKept struct {
	Count, TotalCount         int64
	TimeNanos, TotalTimeNanos int64
}

// rootProfile keeps only what ran inside a frame whose name (Frame.Name, as
// --mapping named it) re matches, unanchored, as the method traces' --root
// does: in each stack the outermost matching frame becomes the root and
// the frames outside it go; a stack without a match goes, and so do the
// unlisted counts, which are in no stack. A match inside the root
// (recursion) stays a frame of the stack, so it counts once. An empty
// stack stays when re matches samples.EmptyStackName. Samples of
// one thread whose stacks become equal merge into the first of them,
// their counts and times added; the frames no stack uses any more go, and
// the rest are renumbered in order of first use, so the profile keeps the
// invariants samples.Profile.Check verifies, and the timeline, if any,
// follows its samples.
//
// A stack the profiler cut at its depth limit (CutStack) may have had a
// match above the cut; it starts at the first match the file shows. As
// the kept stacks no longer end at the limit, DepthLimited is cleared and
// a note says how many such stacks were kept.
func rootProfile(p *samples.Profile, re *regexp.Regexp) rootKept {
	var k rootKept
	match := make([]bool, len(p.Frames))
	for i := range p.Frames {
		match[i] = re.MatchString(p.Frames[i].Name)
	}
	emptyMatch := re.MatchString(p.EmptyStackName())
	type key struct {
		thread int
		stack  string // the frame indices, 4 bytes each
	}
	index := make(map[key]int)
	var buf []byte
	kept, cut := p.Samples[:0], 0
	to := make([]int, len(p.Samples)) // where each sample went, -1 for nowhere: the timeline's
	for i, s := range p.Samples {
		addCount(&k.TotalCount, s.Count)
		addCount(&k.TotalTimeNanos, s.TimeNanos)
		j := slices.IndexFunc(s.Stack, func(f int) bool { return match[f] })
		if len(s.Stack) == 0 && emptyMatch {
			j = 0
		}
		to[i] = -1
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
			kept[at].WeightNanos += s.WeightNanos
			to[i] = at
			continue
		}
		index[kk] = len(kept)
		to[i] = len(kept)
		kept = append(kept, s)
	}
	clear(p.Samples[len(kept):])
	p.Samples = kept
	if p.Timeline != nil {
		p.Timeline.Remap(to) // samples merge within a thread only
	}
	for _, u := range p.Unlisted {
		addCount(&k.TotalCount, u.Count)
	}
	p.Unlisted = nil
	keepUsedFrames(p)
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
func keepUsedFrames(p *samples.Profile) {
	renum := make([]int, len(p.Frames)) // new index + 1; 0: not used yet
	var frames []samples.Frame
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

// mappingMethod is the frame as package mapping takes a method: its class,
// method name, descriptor ("" in hprof text, which has none, so that the
// map resolves it by name) and source file.
func mappingMethod(f *samples.Frame) mapping.Method {
	return mapping.Method{Class: f.Class, Name: f.Method, Signature: f.Signature, Source: f.File}
}

// mappingMethods lists the methods of the profile's frames that have a
// class, each once, for mapping.Read to keep what they need of a map.
func mappingMethods(p *samples.Profile) []mapping.Method {
	seen := make(map[mapping.Method]bool, len(p.Frames))
	var ms []mapping.Method
	for i := range p.Frames {
		f := &p.Frames[i]
		if f.Class == "" {
			continue
		}
		if m := mappingMethod(f); !seen[m] {
			seen[m] = true
			ms = append(ms, m)
		}
	}
	return ms
}

// rename names the frames as m resolves them, once per distinct
// method (a profile has a frame per line that ran), and returns how many
// methods resolved each way. It is for a sampled profile what
// stream.Frame.Rename is for a method trace's frames: a renamed frame gets
// the original name, class, method and source file and the synthesized
// mark, and keeps the file's own <class>.<method> and descriptor in
// Obfuscated and ObfuscatedSignature. Its descriptor stays "" when the file
// gives none (hprof text), as the file of an unobfuscated build would have
// it; its line stays the one the file gives. Frames without a class, and
// methods the map leaves Untouched, are left alone.
//
// Frames that become equal are merged, the samples' stacks renumbered and
// the frames kept in order of first use, so the profile keeps the
// invariants samples.Profile.Check verifies. Frames that differ in their obfuscated name
// stay apart.
func rename(p *samples.Profile, m *mapping.Map) mapping.Counts {
	var c mapping.Counts
	type key struct{ class, method, sig string }
	resolved := make(map[key]mapping.Result)
	renamed := false
	for i := range p.Frames {
		f := &p.Frames[i]
		if f.Class == "" {
			continue
		}
		k := key{f.Class, f.Method, f.Signature}
		res, ok := resolved[k]
		if !ok {
			res = m.Resolve(mappingMethod(f))
			resolved[k] = res
			c.Add(res.Status)
		}
		if res.Status == mapping.Untouched {
			continue
		}
		f.Obfuscated, f.ObfuscatedSignature = f.Name, f.Signature
		f.Name, f.Class, f.Method, f.File, f.Synthesized = res.Name, res.Class, res.Method, res.Source, res.Synthesized
		if f.Signature != "" {
			f.Signature = res.Signature
		}
		renamed = true
	}
	if renamed {
		mergeFrames(p)
	}
	return c
}

// mergeFrames merges equal frames into the first of them and renumbers
// the stacks. The frames are in order of first use, so the first of equal
// frames is the first used, and the merged frames stay in that order.
func mergeFrames(p *samples.Profile) {
	index := make(map[samples.Frame]int, len(p.Frames))
	renum := make([]int, len(p.Frames))
	kept := p.Frames[:0]
	for i, f := range p.Frames {
		j, ok := index[f]
		if !ok {
			j = len(kept)
			index[f] = j
			kept = append(kept, f)
		}
		renum[i] = j
	}
	if len(kept) == len(p.Frames) {
		return
	}
	clear(p.Frames[len(kept):])
	p.Frames = kept
	for i := range p.Samples {
		for j, f := range p.Samples[i].Stack {
			p.Samples[i].Stack[j] = renum[f]
		}
	}
}

// addCount adds n to *sum, failing instead of overflowing.
func addCount(sum *int64, n int64) bool {
	if n > 0 && *sum > (1<<63-1)-n {
		return false
	}
	*sum += n
	return true
}

// limitDepth applies the depth limit (--max-depth) to a sampled profile
// as the stack policy applies it to a method trace (package convert, rule
// 6): in each stack, the frames deeper than limit are folded into the
// frame at the limit, which keeps the root side, so that their samples
// count as its own. It returns the frames it folded, one per sample of
// each stack (a sample is a call for JVMHprofTimes), at most
// math.MaxInt64, and the samples whose stack it cut. The frames no stack
// uses any more go, and the rest are renumbered (keepUsedFrames); samples
// whose stacks become equal stay apart, as the tree merges them. A
// profile whose profiler cut its stacks (DepthLimited) at a depth above
// limit no longer has its stacks end at that depth: DepthLimited is
// cleared and a note says so.
func limitDepth(p *samples.Profile, limit int) (folded, cut int64) {
	if p.MaxDepth <= limit {
		return 0, 0
	}
	for i := range p.Samples {
		s := &p.Samples[i]
		if n := len(s.Stack); n > limit {
			s.Stack = s.Stack[:limit:limit]
			cut++
			if deep := int64(n - limit); s.Count > 0 && deep > (1<<63-1-folded)/s.Count {
				folded = 1<<63 - 1
			} else {
				folded += deep * s.Count
			}
		}
	}
	if p.DepthLimited {
		p.DepthLimited = false
		p.Notes = append(p.Notes, fmt.Sprintf("--max-depth %d is below the profiler's own depth limit (%d frames): the stacks it cut may miss outer frames too", limit, p.MaxDepth))
	}
	keepUsedFrames(p)
	return folded, cut
}
