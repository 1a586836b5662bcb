package samples

import (
	"bytes"
	"fmt"
	"math"
	"strings"
)

// hprofTrace is a TRACE record: its stack, leaf first as printed.
type hprofTrace struct {
	line      int
	thread    int64
	hasThread bool
	frames    []int
	empty     bool // "<empty>" was printed
}

// hprofReader reads hprof text. One reader serves both writers: they share
// the body syntax, and the differences (the JVM's file header, hex obj=,
// optional thread, the CPU TIME section) are all recognised per line.
type hprofReader struct {
	l      *lines
	b      *builder
	traces map[int64]*hprofTrace
	byText map[string]int // frame index by frame line, to parse each text once
	cur    *hprofTrace    // the TRACE whose frames are being read
	kinds  [2]struct {
		sections int     // how many sections of the kind
		line     int     // where the first begins
		total    int64   // the sum of their totals
		rows     rowSums // their rows, added up per trace
	}
	skipped  int // lines not understood
	skipLine int // the first of them
}

// sections whose content is skipped, by BEGIN prefix and END line.
var skippedSections = []struct{ begin, end string }{
	{"SITES BEGIN", "SITES END"},
	{"HEAP DUMP BEGIN", "HEAP DUMP END"},
	{"MONITOR TIME BEGIN", "MONITOR TIME END"},
	{"MONITOR DUMP BEGIN", "MONITOR DUMP END"},
}

// monitor=y writes these event lines between records; they carry no CPU data.
var monitorEvents = []string{"SLEEP: ", "WAIT: ", "WAITED: ", "EXIT: "}

func readHprof(l *lines, jvm bool) (*Profile, error) {
	r := &hprofReader{l: l, b: newBuilder(DalvikHprof), traces: map[int64]*hprofTrace{}, byText: map[string]int{}}
	if jvm {
		r.b.p.Format = JVMHprof
		if err := r.header(); err != nil {
			return nil, err
		}
	}
	for l.next() {
		if err := r.line(l.raw); err != nil {
			return nil, err
		}
	}
	if l.err != nil {
		return nil, l.err
	}
	return r.finish()
}

// header skips io_write_file_header's text: "JAVA PROFILE 1.0.1, created
// <date>", a description that itself holds lines starting with THREAD
// START and TRACE, and a "--------" line.
func (r *hprofReader) header() error {
	for r.l.next() && len(r.l.raw) == 0 {
		// Sniff skipped leading blank lines too.
	}
	if r.l.n > 0 {
		_, r.b.p.Created, _ = strings.Cut(r.l.text(), ", created ")
		r.b.p.Created = strings.TrimSpace(r.b.p.Created)
	}
	for r.l.next() {
		if string(r.l.raw) == "--------" {
			return nil
		}
	}
	if r.l.err != nil {
		return r.l.err
	}
	return r.l.errorf(`the file header ends without its "--------" line`)
}

// line handles one line of the body.
func (r *hprofReader) line(raw []byte) error {
	if len(raw) > 0 && (raw[0] == '\t' || raw[0] == ' ') {
		return r.frame(bytes.TrimSpace(raw))
	}
	r.cur = nil
	s := string(raw)
	switch {
	case s == "":
	case strings.HasPrefix(s, "THREAD START "):
		t, err := threadStart(s)
		if err != nil {
			return r.l.errorf("%v", err)
		}
		r.b.addThread(t)
	case strings.HasPrefix(s, "THREAD END "):
		if err := threadEnd(s); err != nil {
			return r.l.errorf("%v", err)
		}
	case strings.HasPrefix(s, "TRACE "):
		return r.trace(s)
	case strings.HasPrefix(s, "CPU SAMPLES BEGIN"):
		return r.section(cpuSamples, strings.TrimPrefix(s, "CPU SAMPLES BEGIN"))
	case strings.HasPrefix(s, "CPU TIME (ms) BEGIN"):
		return r.section(cpuTimes, strings.TrimPrefix(s, "CPU TIME (ms) BEGIN"))
	default:
		r.other(s)
	}
	return nil
}

// other skips the sections and event lines that hold no CPU data, and
// counts any other line, which a note reports.
func (r *hprofReader) other(s string) {
	for _, sec := range skippedSections {
		if strings.HasPrefix(s, sec.begin) {
			r.skipSection(sec.begin, sec.end)
			return
		}
	}
	for _, p := range monitorEvents {
		if strings.HasPrefix(s, p) {
			return
		}
	}
	if r.skipped == 0 {
		r.skipLine = r.l.n
	}
	r.skipped++
}

func (r *hprofReader) skipSection(begin, end string) {
	for r.l.next() {
		if string(r.l.raw) == end {
			return
		}
	}
	if r.l.err == nil {
		r.truncated(begin)
	}
}

func (r *hprofReader) truncated(section string) {
	r.b.p.Truncated = true
	r.b.note("the file ends inside its %s section (line %d): it was cut short", strings.TrimSuffix(section, " BEGIN"), r.l.n)
}

func (r *hprofReader) trace(s string) error {
	id, thread, hasThread, err := traceHeader(s)
	if err != nil {
		return r.l.errorf("%v", err)
	}
	if old, dup := r.traces[id]; dup {
		return r.l.errorf("TRACE %d is defined twice (first at line %d)", id, old.line)
	}
	r.cur = &hprofTrace{line: r.l.n, thread: thread, hasThread: hasThread}
	r.traces[id] = r.cur
	return nil
}

// frame adds an indented line to the current TRACE.
func (r *hprofReader) frame(s []byte) error {
	t := r.cur
	switch {
	case t == nil:
		return r.l.errorf("indented line %q outside a TRACE", clip(string(s)))
	case string(s) == "<empty>" && len(t.frames) == 0 && !t.empty:
		t.empty = true
		return nil
	case t.empty:
		return r.l.errorf("frame after <empty> in the TRACE of line %d", t.line)
	case len(t.frames) >= maxStack:
		return r.l.errorf("the TRACE of line %d has more than %d frames", t.line, maxStack)
	}
	i, ok := r.byText[string(s)] // no copy for the lookup
	if !ok {
		text := string(s)
		f, err := parseFrame(text)
		if err != nil {
			return r.l.errorf("%v", err)
		}
		i = r.b.frame(f)
		r.byText[text] = i
	}
	t.frames = append(t.frames, i)
	return nil
}

// The two kinds of CPU section.
const (
	cpuSamples = 0
	cpuTimes   = 1
)

var sectionNames = [2]string{"CPU SAMPLES", "CPU TIME (ms)"}

// section reads a CPU section's rows up to its END line.
func (r *hprofReader) section(kind int, rest string) error {
	total, date, err := sectionTotal(rest)
	if err != nil {
		return r.l.errorf("%v", err)
	}
	k := &r.kinds[kind]
	if k.sections++; k.sections == 1 {
		k.line = r.l.n
	}
	if !addCount(&k.total, total) {
		return r.l.errorf("the totals of the %s sections overflow", sectionNames[kind])
	}
	if r.b.p.Created == "" {
		r.b.p.Created = date
	}
	for r.l.next() {
		s := r.l.text()
		if s == sectionNames[kind]+" END" {
			return nil
		}
		if s == "" || strings.HasPrefix(s, "rank ") {
			continue
		}
		row, err := parseRow(s)
		if err != nil {
			return r.l.errorf("%v", err)
		}
		row.line, row.total = r.l.n, total
		k.rows.add(row, kind == cpuTimes)
	}
	if r.l.err != nil {
		return r.l.err
	}
	r.truncated(sectionNames[kind] + " BEGIN")
	return nil
}

// finish turns the rows' sums into samples, one per trace, in the order
// the rows first name them.
func (r *hprofReader) finish() (*Profile, error) {
	kind, err := r.kind()
	if err != nil {
		return nil, err
	}
	rows := &r.kinds[kind].rows
	for _, sum := range rows.sums {
		if rows.over != nil && rows.over.Line < sum.line {
			break
		}
		if err := r.addSample(sum); err != nil {
			return nil, err
		}
	}
	if rows.over != nil {
		rows.over.Format = r.b.p.Format
		return nil, rows.over
	}
	p := &r.b.p
	p.DepthLimited = true
	if kind == cpuTimes {
		if r.kinds[kind].total > math.MaxInt64/1_000_000 {
			return nil, &FormatError{Format: p.Format, Line: r.kinds[kind].line, Msg: "the CPU TIME total overflows"}
		}
		p.TotalTimeNanos = r.kinds[kind].total * 1e6
	} else {
		p.Total = r.kinds[kind].total
		if n := p.Total - p.SampleCount(); n > 0 {
			why := "in the CPU SAMPLES total but in no row (hprof leaves out traces under its cutoff=)"
			if p.Truncated {
				why = "in the CPU SAMPLES total but in no row (lost where the file was cut, or under hprof's cutoff=)"
			}
			p.Unlisted = append(p.Unlisted, Unlisted{Reason: why, Count: n})
		}
	}
	if n := r.kinds[kind].sections; n > 1 {
		r.b.note("%d %s sections, one per dump and each covering the time since the previous one, were added up", n, sectionNames[kind])
	}
	if r.skipped > 0 {
		r.b.note("%d lines that are not hprof CPU data were skipped, the first at line %d", r.skipped, r.skipLine)
	}
	return r.b.finish(), nil
}

// kind settles the format from the sections found.
func (r *hprofReader) kind() (int, error) {
	s, t := r.kinds[cpuSamples], r.kinds[cpuTimes]
	switch {
	case s.sections > 0 && t.sections > 0:
		return 0, &FormatError{Format: r.b.p.Format, Line: max(s.line, t.line), Msg: "the file has both CPU SAMPLES and CPU TIME sections"}
	case t.sections > 0:
		r.b.p.Format = JVMHprofTimes
		return cpuTimes, nil
	case s.sections == 0:
		return 0, r.l.errorf("the file ends without a CPU SAMPLES or CPU TIME section: the profiler writes it when the VM exits (was it run with cpu=samples, and did the VM exit normally?)")
	case r.b.p.Format == JVMHprof:
		r.b.p.Format = JVMHprofSamples
	}
	return cpuSamples, nil
}

// rowSums adds up the rows of one kind of CPU section per trace while
// they are read, so that memory grows with the traces the rows name and
// not with the rows: hprof writes a row per trace and section, and a file
// holds as many sections as dumps.
type rowSums struct {
	index map[int64]int // sums index by trace
	sums  []traceSum    // in the order the rows first name the traces
	count int64         // the sum of all counts
	ns    int64         // and of all times
	// over is the first row whose counts or time overflow an int64 sum,
	// either its trace's or the total of the section's kind. finish reports
	// it, with the format settled, unless a row before it names a trace
	// without a TRACE record. Rows after it are not added.
	over *FormatError
}

// traceSum is the sum of the rows naming one trace.
type traceSum struct {
	trace int64
	line  int // the first row naming it
	count int64
	ns    int64
}

// add adds a row to its trace's sum. timed says the rows are of CPU TIME
// sections, whose rows give a share of the section's total time.
func (s *rowSums) add(row row, timed bool) {
	if s.over != nil {
		return
	}
	i, ok := s.index[row.trace]
	if !ok {
		if s.index == nil {
			s.index = map[int64]int{}
		}
		i = len(s.sums)
		s.index[row.trace] = i
		s.sums = append(s.sums, traceSum{trace: row.trace, line: row.line})
	}
	t := &s.sums[i]
	// hprof prints the self time as a percentage of the section's total ms:
	// ns = percent/100 × total × 1e6.
	var ns float64
	if timed {
		ns = math.Round(row.percent * float64(row.total) * 1e4)
	}
	switch {
	case !addCount(&t.count, row.count) || ns >= 1<<62 || !addCount(&t.ns, int64(ns)):
		s.over = &FormatError{Line: row.line, Msg: fmt.Sprintf("the counts of trace %d overflow", row.trace)}
	case !addCount(&s.count, row.count) || !addCount(&s.ns, int64(ns)):
		what := "counts"
		if timed {
			what = "counts or times"
		}
		s.over = &FormatError{Line: row.line, Msg: fmt.Sprintf("the rows' %s add up to more than %d", what, int64(math.MaxInt64))}
	}
}

// addSample adds the sample of a trace's rows.
func (r *hprofReader) addSample(sum traceSum) error {
	t := r.traces[sum.trace]
	if t == nil {
		return &FormatError{Format: r.b.p.Format, Line: sum.line, Msg: fmt.Sprintf("trace %d has no TRACE record", sum.trace)}
	}
	s := Sample{Thread: -1, Trace: sum.trace, Stack: make([]int, len(t.frames)), Count: sum.count, TimeNanos: sum.ns}
	for j, f := range t.frames {
		s.Stack[len(t.frames)-1-j] = f
	}
	if t.hasThread {
		s.Thread = r.b.thread(t.thread)
	}
	r.b.p.Samples = append(r.b.p.Samples, s)
	return nil
}
