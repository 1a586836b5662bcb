package pprofout_test

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/pprofout"
)

// TestBuilderWrite checks that Builder.Write writes the library's bytes
// where build's callers do not go: every readable corpus trace, all of them
// merged, traces with different clocks merged, and stacks deeper than the
// encoder's stack buffer. The library encodes the reference path's profile
// (every tree copied into samples, every sample indexed); the encoder
// writes a single tree of distinct stacks from its nodes (Add's pending
// tree) and merged ones from the samples.
func TestBuilderWrite(t *testing.T) {
	dir := t.TempDir()
	deep := writeGen(t, dir, "deep.trace", tracegen.Large(tracegen.LargeOptions{
		Bytes: 2 << 20, Threads: 3, Methods: 500, MaxDepth: 200, Seed: 7}))
	cpuOnly := writeTrace(t, dir, "cpu.trace", "version 2\nclock thread-cpu\nthread 1 main\n"+
		"method 0x4 a.A run ()V A.java\nmethod 0x8 a.B go ()V B.java\n"+
		"1 enter 0x4 10\n1 enter 0x8 15\n1 exit 0x8 40\n1 exit 0x4 41\n")
	// 70 nested calls: deeper than the encoder's 64-entry stack buffer.
	var nested strings.Builder
	nested.WriteString("version 3\nclock dual\nthread 1 main\n")
	for i := 1; i <= 70; i++ {
		fmt.Fprintf(&nested, "method %#x a.C%d m ()V C.java\n", i*4, i)
	}
	for i := 1; i <= 70; i++ {
		fmt.Fprintf(&nested, "1 enter %#x %d %d\n", i*4, i, i)
	}
	for i := 70; i >= 1; i-- {
		fmt.Fprintf(&nested, "1 exit %#x %d %d\n", i*4, 200-i, 200-i)
	}
	cases := map[string][]string{
		"nested70":        {writeTrace(t, dir, "nested.trace", nested.String())},
		"sample":          {testutil.SampleTrace(t)},
		"policy":          {testutil.PolicyTrace(t)},
		"deep":            {deep},
		"cpu-only":        {cpuOnly},
		"dual+cpu-only":   {testutil.SampleTrace(t), cpuOnly},
		"policy+sample":   {testutil.PolicyTrace(t), testutil.SampleTrace(t)},
		"deep+policy+cpu": {deep, testutil.PolicyTrace(t), cpuOnly},
	}
	if all := testutil.CorpusTraces(t); all != nil {
		for _, path := range all {
			cases["corpus/"+filepath.Base(path)] = []string{path}
		}
		cases["corpus/all"] = all
	}
	for name, paths := range cases {
		t.Run(name, func(t *testing.T) {
			p, err := addTo(t, pprofout.Reference(pprofout.New(pprofout.Options{Version: testVersion})), paths...).Profile()
			if err != nil {
				t.Fatal(err)
			}
			checkBuilderWrite(t, p, builder(t, paths...))
		})
	}
}

// TestStackIDs ties the encoder's stack ids, which take a node's stack from
// its parent's, to the walk up every node's stack: the same bytes, on
// trees of one trace (whose nodes the encoder writes from the tree) with
// deep, recursive and orphan stacks.
func TestStackIDs(t *testing.T) {
	if pprofout.ReferenceOnly {
		t.Skip("the build tag atrace2_reference keeps no pending tree, whose stacks the ids are of")
	}
	dir := t.TempDir()
	paths := []string{testutil.SampleTrace(t), testutil.PolicyTrace(t),
		writeGen(t, dir, "deep.trace", tracegen.Large(tracegen.LargeOptions{
			Bytes: 2 << 20, Threads: 3, Methods: 500, MaxDepth: 200, Seed: 7})),
		writeGen(t, dir, "interleaved.trace", tracegen.Large(tracegen.LargeOptions{
			Bytes: 1 << 20, Methods: 300, Seed: 3, Interleaved: true}))}
	paths = append(paths, testutil.CorpusTraces(t)...)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var want, got bytes.Buffer
			err := addTo(t, pprofout.WalkStacks(pprofout.New(pprofout.Options{Version: testVersion})), path).WriteEncoded(&want)
			if err != nil {
				t.Fatal(err)
			}
			if err := builder(t, path).WriteEncoded(&got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("stack ids: %d bytes differ from the walk's %d", got.Len(), want.Len())
			}
		})
	}
}

// TestWriteError: a write error in the middle of a profile of many
// spills, from a pending tree and from samples, comes back from Write.
func TestWriteError(t *testing.T) {
	dir := t.TempDir()
	large := writeGen(t, dir, "large.trace", tracegen.Large(tracegen.LargeOptions{Bytes: 8 << 20, Seed: 5}))
	for name, paths := range map[string][]string{
		"large":        {large},
		"large+sample": {large, testutil.SampleTrace(t)},
	} {
		t.Run(name, func(t *testing.T) {
			var whole bytes.Buffer
			if err := builder(t, paths...).WriteEncoded(&whole); err != nil {
				t.Fatal(err)
			}
			if whole.Len() < 64<<10 {
				t.Errorf("the profile is %d bytes gzipped: too small to take several spills", whole.Len())
			}
			errFull := errors.New("disk full")
			if err := builder(t, paths...).WriteEncoded(&failingWriter{n: whole.Len() / 2, err: errFull}); !errors.Is(err, errFull) {
				t.Errorf("writing to a writer that fails half way: %v, want %v", err, errFull)
			}
		})
	}
}

// failingWriter takes n bytes, then fails with err.
type failingWriter struct {
	n   int
	err error
}

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, w.err
	}
	w.n -= len(p)
	return len(p), nil
}

// TestIndexSamples ties Add's late sample index to the reference, which
// indexes every sample from the start: the same profile, byte for byte, on
// traces whose nodes share samples (orphans, merged traces, one trace
// twice) and on traces whose nodes do not.
func TestIndexSamples(t *testing.T) {
	if pprofout.ReferenceOnly {
		t.Skip("the build tag atrace2_reference indexes every sample of every builder")
	}
	dir := t.TempDir()
	large := writeGen(t, dir, "large.trace", tracegen.Large(tracegen.LargeOptions{Bytes: 1 << 20, Threads: 3, Methods: 300, Seed: 9}))
	// g under an orphan f and under a later call of f on one thread: one
	// sample (stack f;g, no synthetic label), which only the orphan frame
	// tells Add to index.
	orphan := writeTrace(t, dir, "orphan.trace", "version 3\nclock dual\nthread 1 main\n"+
		"method 0x4 a.A f ()V A.java\nmethod 0x8 a.A g ()V A.java\n"+
		"1 enter 0x8 1 1\n1 exit 0x8 2 2\n1 exit 0x4 3 3\n1 enter 0x4 4 4\n1 enter 0x8 5 5\n1 exit 0x8 7 7\n1 exit 0x4 9 9\n")
	for name, paths := range map[string][]string{
		"orphan":        {orphan},
		"sample":        {testutil.SampleTrace(t)},
		"policy":        {testutil.PolicyTrace(t)},
		"large":         {large},
		"large+sample":  {large, testutil.SampleTrace(t)},
		"sample+sample": {testutil.SampleTrace(t), testutil.SampleTrace(t)},
	} {
		t.Run(name, func(t *testing.T) {
			var want, got bytes.Buffer
			p, err := addTo(t, pprofout.Reference(pprofout.New(pprofout.Options{Version: testVersion})), paths...).Profile()
			if err != nil {
				t.Fatal(err)
			}
			if err := p.WriteUncompressed(&want); err != nil {
				t.Fatal(err)
			}
			if p, err = builder(t, paths...).Profile(); err != nil {
				t.Fatal(err)
			}
			if err := p.WriteUncompressed(&got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("late index: %d bytes differ from the reference's %d", got.Len(), want.Len())
			}
		})
	}
}
