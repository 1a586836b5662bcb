package samples

import "fmt"

// KeepThreads keeps only the samples of the threads keep accepts (a
// thread filter, --thread): the samples of other threads and those
// without a thread go, and so do the unlisted counts, which belong to no
// thread. The frames no kept sample uses go too, the others keeping their
// order, and MaxDepth becomes the deepest kept stack's. It returns how many
// of the threads with samples were kept; the samples without a thread
// count as one thread.
func (p *Profile) KeepThreads(keep func(th *Thread) bool) (kept, total int) {
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
	p.keepUsedFrames()
	return kept, total
}

// ThreadName is the name of a thread as the outputs show it: its own, or
// "thread <id>" when the file gives none.
func (th *Thread) ThreadName() string {
	if th.Name == "" {
		return fmt.Sprintf("thread %d", th.ID)
	}
	return th.Name
}
