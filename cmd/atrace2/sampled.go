package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/stacks"
)

// Sampled profiles (hprof text, Android 5.x ART profile files) are read by
// package samples, not by the method-trace parser. Every command looks at
// an input's first bytes first and takes the sampled path when they are one
// of those formats; the method-trace path is unchanged otherwise.

// sniffLen is how much of an input the sniff looks at (samples.Sniff wants
// 4 KiB or more).
const sniffLen = 4096

// peekedStdin is standard input after a sniff looked at its first bytes,
// which stay buffered for whichever reader comes next: stdin is read once.
type peekedStdin struct{ *bufio.Reader }

// sniff says whether an input is a sampled profile, and which. An input
// that cannot be opened is not one: the method-trace reader reports why.
func (g *Globals) sniff(in input) (f samples.Format, gzip, ok bool, err error) {
	head, err := g.head(in)
	if err != nil {
		return samples.Unknown, false, false, err
	}
	f, ok = samples.Sniff(head)
	return f, ok && len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b, ok, nil
}

// head returns up to sniffLen bytes of the input without consuming them.
func (g *Globals) head(in input) ([]byte, error) {
	buf := make([]byte, sniffLen)
	if p, ok := g.pipe(in); ok {
		return peekHead(p.r, in)
	}
	if in.path != "-" {
		f, err := os.Open(in.path)
		if err != nil {
			return nil, nil
		}
		defer f.Close()
		n, _ := io.ReadFull(f, buf)
		return buf[:n], nil
	}
	if f, ok := regularStdin(g.stdin()); ok {
		// The parser reads a regular file from offset 0 with ReadAt; so do we.
		n, _ := f.ReadAt(buf, 0)
		return buf[:n], nil
	}
	p, ok := g.env.stdin.(peekedStdin)
	if !ok {
		p = peekedStdin{bufio.NewReaderSize(g.stdin(), 64<<10)}
		g.env.stdin = p
	}
	return peekHead(p.Reader, in)
}

// peekHead returns up to sniffLen bytes of a stream read once, leaving
// them buffered in r for whichever reader comes next.
func peekHead(r *bufio.Reader, in input) ([]byte, error) {
	b, err := r.Peek(sniffLen)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, fmt.Errorf("%s: %w", in.name(), err)
	}
	return b, nil
}

func (g *Globals) stdin() io.Reader {
	if g.env.stdin == nil {
		return os.Stdin
	}
	return g.env.stdin
}

// regularStdin returns stdin as a file when it is a regular file, which
// can be read at any offset.
func regularStdin(r io.Reader) (*os.File, bool) {
	f, ok := r.(*os.File)
	if !ok {
		return nil, false
	}
	st, err := f.Stat()
	return f, err == nil && st.Mode().IsRegular()
}

// sampled reads an input that is a sampled profile into its call tree and
// says whether it was gzip-compressed; it returns nil for any other input.
// It prints the reader's notes, and applies --clock and --strict.
func (g *Globals) sampled(in input) (*stacks.Sampled, bool, error) {
	_, gz, ok, err := g.sniff(in)
	if err != nil || !ok {
		return nil, false, err
	}
	if g.Clock != "auto" && g.Clock != "" {
		return nil, false, usagef("%s: --clock %s: a sampled profile has no clocks to choose from (--clock applies to method traces)", in.name(), g.Clock)
	}
	p, err := g.readSamples(in)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", in.name(), err)
	}
	if g.Strict && p.Truncated {
		return nil, false, fmt.Errorf("%s: strict mode: the file was cut short inside a CPU section", in.name())
	}
	if !g.Quiet {
		for _, n := range p.Notes {
			fmt.Fprintf(g.env.stderr, "atrace2: %s: note: %s\n", in.name(), n)
		}
	}
	s, err := stacks.FromSamples(in.path, p)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", in.name(), err)
	}
	return s, gz, nil
}

// readSamples opens and decodes an input known to be a sampled profile.
func (g *Globals) readSamples(in input) (*samples.Profile, error) {
	if p, ok := g.pipe(in); ok {
		return samples.Read(p.r)
	}
	if in.path == "-" {
		if f, ok := regularStdin(g.stdin()); ok {
			st, err := f.Stat()
			if err != nil {
				return nil, err
			}
			return samples.Read(io.NewSectionReader(f, 0, st.Size()))
		}
		return samples.Read(g.stdin())
	}
	f, err := os.Open(in.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return samples.Read(f)
}

// kindOf names a sampled format in messages: "a JVM hprof text profile".
func kindOf(f samples.Format) string {
	switch f {
	case samples.DalvikHprof:
		return "a Dalvik SamplingProfiler (ASCII hprof) profile"
	case samples.JVMHprof, samples.JVMHprofSamples, samples.JVMHprofTimes:
		return "a JVM hprof text profile"
	}
	return "an Android 5.x ART profile"
}

// noTimeline refuses a sampled profile in a command that needs events.
func (g *Globals) noTimeline(in input, need string) error {
	f, _, ok, err := g.sniff(in)
	if err != nil || !ok {
		return err
	}
	return fmt.Errorf("%s: %s has no timestamps; %s — use pprof, speedscope, folded or top", in.name(), kindOf(f), need)
}
