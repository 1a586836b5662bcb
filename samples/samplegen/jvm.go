package samplegen

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
)

// JVMOptions choose what Hprof.JVM writes besides threads and traces.
type JVMOptions struct {
	// Times writes a CPU TIME (ms) section (cpu=times): the count column is
	// Trace.Count (calls) and the self percentage comes from Trace.TimeMs.
	Times bool
	// Dumps spreads each count over this many CPU SAMPLES sections, as a
	// JVM dumped several times writes them (hprof resets its counts after
	// each dump). 0 and 1 mean one section. Ignored with Times.
	Dumps int
	// Cutoff leaves out of a section the rows whose count there is below
	// it; their samples stay in the section's total (hprof's cutoff=).
	Cutoff int64
	// Others adds the records a reader must skip: monitor events, SITES,
	// HEAP DUMP (with indented lines), MONITOR DUMP and MONITOR TIME.
	Others bool
}

// The text io_write_file_header copies between the first line and
// "--------". Ours is short and our own wording, but like the real one it
// has lines that start with record names, which readers must not take for
// records.
const jvmPrelude = `
Header for a generated hprof ASCII file (test fixture)

This file has these records:

THREAD START
THREAD END      thread lifetimes
TRACE           a stack trace, one frame per indented line
CPU SAMPLES     traces ranked by the samples that hit them
CPU TIME        traces ranked by CPU time
`

// JVM writes h as hprof_io.c does with format=a: the file header, the
// thread lines, then per dump the traces not printed yet and a CPU section.
// Traces with Count 0 are printed and have no row.
func (h *Hprof) JVM(o JVMOptions) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "JAVA PROFILE 1.0.1, created %s\n%s\n--------\n\n", h.Date, jvmPrelude)
	h.threadLines(&b, 16)
	if o.Others {
		b.WriteString(monitorEvents)
	}
	dumps := max(o.Dumps, 1)
	if o.Times {
		dumps = 1
	}
	printed := make([]bool, len(h.Traces))
	for d := range dumps {
		for i, t := range h.Traces {
			if !printed[i] && (t.Count == 0 || part(t.Count, d, dumps) > 0) {
				printed[i] = true
				jvmTrace(&b, t)
			}
		}
		if o.Others && d == dumps-1 {
			b.WriteString(otherSections)
		}
		h.section(&b, o, d, dumps)
	}
	return b.Bytes()
}

// part is dump d's share of count when it is spread evenly over n dumps.
func part(count int64, d, n int) int64 {
	return count*int64(d+1)/int64(n) - count*int64(d)/int64(n)
}

func jvmTrace(b *bytes.Buffer, t Trace) {
	fmt.Fprintf(b, "TRACE %d:", t.ID)
	if t.Thread != 0 {
		fmt.Fprintf(b, " (thread=%d)", t.Thread)
	}
	if t.Phase != "" {
		fmt.Fprintf(b, " (from %s phase of JVM)", t.Phase)
	}
	b.WriteString("\n")
	if len(t.Frames) == 0 {
		b.WriteString("\t<empty>\n")
	}
	for _, f := range t.Frames {
		src, line := f.File, strconv.Itoa(f.Line)
		if src == "" {
			src = "<Unknown Source>"
		}
		switch {
		case f.Native:
			line = "Native method"
		case f.Line < 0 && f.Compiled:
			line = "Compiled method"
		case f.Line < 0:
			line = "Unknown line"
		}
		fmt.Fprintf(b, "\t%s.%s(%s:%s)\n", f.Class, f.Method, src, line)
	}
}

type jvmRow struct {
	t    Trace
	n    int64 // samples in this section, or calls
	cost int64 // what the rows are ranked and the percentages computed by
}

// section writes dump d's CPU section (io_write_cpu_samples_*).
func (h *Hprof) section(b *bytes.Buffer, o JVMOptions, d, dumps int) {
	var rows []jvmRow
	var total int64
	for _, t := range h.Traces {
		r := jvmRow{t: t, n: part(t.Count, d, dumps)}
		r.cost = r.n
		if o.Times {
			r.n, r.cost = t.Count, t.TimeMs
		}
		total += r.cost
		if r.n > 0 && r.n >= o.Cutoff {
			rows = append(rows, r)
		}
	}
	slices.SortStableFunc(rows, func(a, b jvmRow) int { return cmp.Compare(b.cost, a.cost) })
	name := "CPU SAMPLES"
	if o.Times {
		name = "CPU TIME (ms)"
	}
	fmt.Fprintf(b, "%s BEGIN (total = %d) %s\n", name, total, h.Date)
	if len(rows) > 0 {
		b.WriteString("rank   self  accum   count trace method\n")
	}
	var accum float64
	for i, r := range rows {
		pct := 0.0
		if total > 0 {
			pct = float64(r.cost) / float64(total) * 100
		}
		accum += pct
		fmt.Fprintf(b, "%4d %5.2f%% %5.2f%% %7d %5d", i+1, pct, accum, r.n, r.t.ID)
		if len(r.t.Frames) == 0 {
			b.WriteString(" <empty trace>\n")
		} else {
			fmt.Fprintf(b, " %s.%s\n", r.t.Frames[0].Class, r.t.Frames[0].Method)
		}
	}
	fmt.Fprintf(b, "%s END\n", name)
}

// monitorEvents are lines monitor=y writes as events happen.
const monitorEvents = `WAIT: MONITOR java.lang.Object, timeout=0, thread 200001
WAITED: MONITOR java.lang.Object, time_waited=12, thread 200001
SLEEP: timeout=10, <unknown thread>
EXIT: MONITOR java.lang.Object, thread 200001
`

// otherSections are hprof sections that hold no CPU data, in the order
// dump_all_data writes them, with the indented lines of heap and monitor
// dumps that readers must not take for frames.
const otherSections = `MONITOR DUMP BEGIN
    THREAD 200001, trace 300001, status: R
    MONITOR java.lang.Object
	owner: thread 200001, entry count: 1
	waiting to enter:
	waiting to be notified:
MONITOR DUMP END
MONITOR TIME BEGIN (total = 0 ms) Sun Jan 13 05:57:35 2013
MONITOR TIME END
HEAP DUMP BEGIN (2 objects, 48 bytes) Sun Jan 13 05:57:35 2013
ROOT 50000001 (kind=<thread>, id=200001, trace=300001)
CLS 50000002 (name=java.lang.Object, trace=300000)
	super		50000003
OBJ 50000004 (sz=16, trace=300001, class=java.lang.Object@50000002)
	value		50000005
ARR 50000006 (sz=24, trace=300001, nelems=4, elem type=char)
HEAP DUMP END
SITES BEGIN (ordered by live bytes) Sun Jan 13 05:57:35 2013
          percent          live          alloc'ed  stack class
 rank   self  accum     bytes objs     bytes  objs trace name
    1 10.00% 10.00%      1024    4      2048     8 300001 char[]
SITES END
`
