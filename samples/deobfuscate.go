package samples

import "github.com/atrace2/atrace2/mapping"

// MappingMethod is the frame as package mapping takes a method: its class,
// method name, descriptor ("" in hprof text, which has none, so that the
// map resolves it by name) and source file.
func (f *Frame) MappingMethod() mapping.Method {
	return mapping.Method{Class: f.Class, Name: f.Method, Signature: f.Signature, Source: f.File}
}

// MappingMethods lists the methods of the profile's frames that have a
// class, each once, for mapping.Read to keep what they need of a map.
func (p *Profile) MappingMethods() []mapping.Method {
	seen := make(map[mapping.Method]bool, len(p.Frames))
	var ms []mapping.Method
	for i := range p.Frames {
		f := &p.Frames[i]
		if f.Class == "" {
			continue
		}
		if m := f.MappingMethod(); !seen[m] {
			seen[m] = true
			ms = append(ms, m)
		}
	}
	return ms
}

// Deobfuscate names the frames as m resolves them, once per distinct
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
// invariants Check verifies. Frames that differ in their obfuscated name
// stay apart.
func (p *Profile) Deobfuscate(m *mapping.Map) mapping.Counts {
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
			res = m.Resolve(f.MappingMethod())
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
		p.mergeFrames()
	}
	return c
}

// mergeFrames merges equal frames into the first of them and renumbers
// the stacks. The frames are in order of first use, so the first of equal
// frames is the first used, and the merged frames stay in that order.
func (p *Profile) mergeFrames() {
	index := make(map[Frame]int, len(p.Frames))
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
