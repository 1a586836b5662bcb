package report

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/atrace2/atrace2/gate"
	"github.com/atrace2/atrace2/stream"
)

// Row status in a diff.
const (
	StatusBoth    = "both"     // the method ran in both traces
	StatusOldOnly = "old-only" // the method ran only in the old trace
	StatusNewOnly = "new-only" // the method ran only in the new trace
)

// DiffReport compares the flat profiles (all threads combined) of two
// traces, or of two sets of runs: then each value is the median of the
// runs. Every slice has one value per clock, in Clocks order: the clocks
// every trace has.
type DiffReport struct {
	Old string `json:"old"`
	New string `json:"new"`
	// OldRuns and NewRuns name the runs of each side when a side has more
	// than one; each Change then lists the value in every run.
	OldRuns []string `json:"old_runs,omitempty"`
	NewRuns []string `json:"new_runs,omitempty"`
	Clocks  []string `json:"clocks"`
	// CallsUnknown says one of the profiles is sampled: its calls are 0
	// because samples do not count calls, so the calls changes mean nothing.
	CallsUnknown bool      `json:"calls_unknown,omitempty"`
	Sort         string    `json:"sort"`
	Threshold    Threshold `json:"threshold"`
	Total        []Change  `json:"total"`
	Methods      int       `json:"methods"`  // methods in either trace
	OldOnly      int       `json:"old_only"` // of which only in the old trace
	NewOnly      int       `json:"new_only"` // of which only in the new trace
	Hidden       int       `json:"hidden"`   // rows under the threshold
	Rows         []DiffRow `json:"rows"`
	// Notes are caveats printed under the header: a side recorded in
	// sampling mode, whose calls and times are approximate.
	Notes []string `json:"notes,omitempty"`
	// Gate is the verdicts of the --fail-on rules; nil without rules.
	Gate *GateReport `json:"gate,omitempty"`
}

// DiffRow is one method in the two traces.
type DiffRow struct {
	Method     string   `json:"method"`
	Signature  string   `json:"signature"`
	Overloaded bool     `json:"overloaded,omitempty"`
	Status     string   `json:"status"` // StatusBoth, StatusOldOnly or StatusNewOnly
	Excl       []Change `json:"excl"`
	Incl       []Change `json:"incl"`
	Calls      Change   `json:"calls"`
}

// Change is a value in the old and new trace, or the medians of the old
// and new runs (the mean of the two middle values for an even count; a run
// where the method is absent counts 0). Pct is the change in percent of
// Old, nil when Old is zero. Runs is nil for one run per side.
type Change struct {
	Old   float64  `json:"old"`
	New   float64  `json:"new"`
	Delta float64  `json:"delta"`
	Pct   *float64 `json:"pct"`
	*Runs
}

// Runs is the detail of a change over several runs: the value in each run
// and, with at least MinRunsForP runs per side, the two-sided
// Mann–Whitney U test's p-value. A pointer keeps Change small: a one-run
// diff holds and sorts one per method and clock.
type Runs struct {
	OldRuns []int64  `json:"old_runs"`
	NewRuns []int64  `json:"new_runs"`
	P       *float64 `json:"p,omitempty"`
}

// PValue is the change's p-value, nil without one.
func (c *Change) PValue() *float64 {
	if c.Runs == nil {
		return nil
	}
	return c.P
}

func newChange(before, after float64) Change {
	c := Change{Old: before, New: after, Delta: after - before}
	if before != 0 {
		p := 100 * c.Delta / before
		c.Pct = &p
	}
	return c
}

// MinRunsForP is the number of runs each side needs for a p-value.
const MinRunsForP = gate.MinRuns

// runChange is the change of the medians of the runs' values, with the
// runs listed when a side has several.
func runChange(before, after []int64) Change {
	if len(before) == 1 && len(after) == 1 {
		return newChange(float64(before[0]), float64(after[0]))
	}
	c := newChange(median(before), median(after))
	c.Runs = &Runs{OldRuns: before, NewRuns: after}
	if len(before) >= MinRunsForP && len(after) >= MinRunsForP {
		c.P = pValue(before, after)
	}
	return c
}

// ErrThresholdUnit refuses a threshold in time for profiles that count
// samples.
var ErrThresholdUnit = errors.New("the profiles count samples, not time: give a percentage (0.5%)")

// Threshold hides diff rows whose exclusive and inclusive changes on the
// first clock are both smaller than it: either an absolute time, or a
// percentage of the old trace's total time.
type Threshold struct {
	Nanos   int64   `json:"ns,omitempty"`
	Percent float64 `json:"pct,omitempty"`
}

// ParseThreshold reads "0", a duration with a unit ("500us", "500µs",
// "1.5ms", "2s") or a percentage of the old total ("0.5%").
func ParseThreshold(s string) (Threshold, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "0" {
		return Threshold{}, nil
	}
	if num, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || v < 0 || v > 100 {
			return Threshold{}, fmt.Errorf("threshold %q: want a percentage from 0 to 100", s)
		}
		return Threshold{Percent: v}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return Threshold{}, fmt.Errorf("threshold %q: want a duration with a unit (500us, 2ms, 1s) or a percentage (0.5%%)", s)
	}
	return Threshold{Nanos: int64(d)}, nil
}

// limit returns the threshold in ns for an old total of total ns.
func (t Threshold) limit(total int64) int64 {
	if t.Percent > 0 {
		return int64(t.Percent / 100 * float64(total))
	}
	return t.Nanos
}

// DiffOptions select and order the rows of a diff.
type DiffOptions struct {
	Sort      string // by the absolute change of: SortExcl (default), SortIncl, SortCalls; or SortName
	Limit     int    // rows to show; 0 for all
	Threshold Threshold

	// Rules are the --fail-on rules, judged on every method and the thread
	// totals, and on Extra (the startup phases), with the significance
	// level Alpha (DefaultAlpha when 0).
	Rules             []gate.Rule
	Extra             []gate.Series
	Alpha             float64
	Adjust            gate.Adjustment // of each rule's p-values; the zero value is gate.BH
	InconclusiveFails bool            // an inconclusive verdict fails the gate
}

// Diff compares two profiles method by method; methods are matched by name
// and signature.
func Diff(before, after *Profile, opt DiffOptions) (*DiffReport, error) {
	return DiffRuns([]*Flat{before.Flat()}, []*Flat{after.Flat()}, opt)
}

// Flat is what a diff keeps of one run: its flat profile, all threads
// combined, without the call tree, so that a diff of many runs holds one
// Flat per run and one call tree at a time.
type Flat struct {
	Name         string
	Clocks       []Basis
	CallsUnknown bool
	// dual says the off-CPU slot holds off-CPU time: the trace has the
	// wall and the thread-CPU clock.
	dual bool
	// sampling is the profile's guess of a sampling-mode recording.
	sampling stream.Sampling
	methods  []Method // the profile's methods; those with stats[m].present ran
	stats    []stat   // per method
	total    times
}

// Flat returns the profile's flat totals, all threads combined. It shares
// the profile's table of methods.
func (p *Profile) Flat() *Flat {
	st, total := p.stats()
	return &Flat{Name: p.Name, Clocks: p.Clocks, CallsUnknown: p.CallsUnknown, total: total, methods: p.Methods, stats: st, sampling: p.Sampling,
		dual: slices.Contains(p.Clocks, OffCPU) || (slices.Contains(p.Clocks, Wall) && slices.Contains(p.Clocks, CPU))}
}

// DiffRuns compares two sets of runs method by method: each value is the
// median of the runs' values (a run where the method is absent counts 0),
// with a p-value when each side has at least MinRunsForP runs. One run per
// side is Diff. Methods are matched by name and signature.
func DiffRuns(olds, news []*Flat, opt DiffOptions) (*DiffReport, error) {
	d, err := diffRuns(olds, news, opt)
	if err != nil {
		return nil, err
	}
	if len(opt.Rules) > 0 {
		checks, err := d.ruleChecks(opt.Rules, opt.Extra, "", false)
		if err != nil {
			return nil, err
		}
		d.r.Gate = judgeChecks(opt, checks, false)
	}
	d.finish(opt)
	return d.r, nil
}

// runsDiff is a diff of two sets of runs before its rows are filtered and
// sorted, with what the gate needs: the runs joined and their clocks.
type runsDiff struct {
	r       *DiffReport
	j       *joined
	clocks  []Basis
	noCalls bool
}

// diffRuns compares the runs, rules aside.
func diffRuns(olds, news []*Flat, opt DiffOptions) (*runsDiff, error) {
	if len(olds) == 0 || len(news) == 0 {
		return nil, errors.New("report: a diff needs at least one run on each side")
	}
	if err := checkSort(opt.Sort); err != nil {
		return nil, err
	}
	if opt.Sort == "" {
		opt.Sort = SortExcl
	}
	// A sampled profile's cpu clock is the CPU time its samples stand for,
	// an estimate; a method trace's is measured: the two share a name, not
	// a clock, and the change between them would read as the code's.
	all := append(olds[:len(olds):len(olds)], news...)
	for _, f := range all[1:] {
		if a := all[0]; sampledFlat(a) != sampledFlat(f) && len(commonClocks(a.Clocks, f.Clocks)) > 0 {
			return nil, fmt.Errorf("%s has %s and %s %s: no clock in common to compare", a.Name, cpuKind(a), f.Name, cpuKind(f))
		}
	}
	clocks := olds[0].Clocks
	for _, f := range append(olds[1:len(olds):len(olds)], news...) {
		prev := clocks
		clocks = commonClocks(clocks, f.Clocks)
		if len(clocks) == 0 {
			first := olds[0]
			if len(olds) > 1 || len(news) > 1 {
				return nil, fmt.Errorf("%s has %s and %s %s: no clock in common to compare",
					first.Name, describeClocks(prev), f.Name, describeClocks(f.Clocks))
			}
			return nil, fmt.Errorf("%s has %s and %s %s: no clock in common to compare",
				first.Name, describeClocks(first.Clocks), f.Name, describeClocks(f.Clocks))
		}
	}
	noCalls := false
	for _, f := range append(olds[:len(olds):len(olds)], news...) {
		noCalls = noCalls || f.CallsUnknown
	}
	if noCalls && opt.Sort == SortCalls {
		return nil, ErrNoCalls
	}
	if clocks[0] == Samples && opt.Threshold.Nanos > 0 {
		return nil, fmt.Errorf("threshold %s: %w", time.Duration(opt.Threshold.Nanos), ErrThresholdUnit)
	}
	r := &DiffReport{Clocks: clockNames(clocks), CallsUnknown: noCalls, Sort: opt.Sort, Threshold: opt.Threshold}
	r.Old, r.OldRuns = sideName(olds, "old")
	r.New, r.NewRuns = sideName(news, "new")
	r.Notes = append(samplingNotes("old", olds), samplingNotes("new", news)...)
	j := joinRuns(olds, news)
	r.Total = make([]Change, len(clocks))
	for i, c := range clocks {
		r.Total[i] = runChange(runValues(olds, func(f *Flat) int64 { return f.total.at(c) }),
			runValues(news, func(f *Flat) int64 { return f.total.at(c) }))
	}
	r.Rows = j.rows(clocks)
	r.Methods = len(r.Rows)
	for _, row := range r.Rows {
		switch row.Status {
		case StatusOldOnly:
			r.OldOnly++
		case StatusNewOnly:
			r.NewOnly++
		}
	}
	return &runsDiff{r: r, j: j, clocks: clocks, noCalls: noCalls}, nil
}

// finish hides the rows under the threshold, sorts them and keeps the
// first opt.Limit.
func (d *runsDiff) finish(opt DiffOptions) {
	r := d.r
	r.filter(opt.Threshold.limit(int64(r.Total[0].Old)))
	sortDiff(r.Rows, r.Sort)
	if opt.Limit > 0 && len(r.Rows) > opt.Limit {
		r.Rows = r.Rows[:opt.Limit]
	}
}

// sideName names a side in headers: the trace's name, or "N old runs"
// and the runs' names.
func sideName(runs []*Flat, side string) (string, []string) {
	if len(runs) == 1 {
		return runs[0].Name, nil
	}
	names := make([]string, len(runs))
	for i, f := range runs {
		names[i] = f.Name
	}
	return fmt.Sprintf("%d %s runs", len(runs), side), names
}

func runValues(runs []*Flat, v func(*Flat) int64) []int64 {
	out := make([]int64, len(runs))
	for i, f := range runs {
		out[i] = v(f)
	}
	return out
}

// joined is the methods of every run matched by name and signature: per
// method, its index in each run's Flat, -1 where it is absent.
type joined struct {
	olds, news []*Flat
	keys       []methodKey
	overloaded []bool
	runs       int     // len(olds) + len(news)
	at         []int32 // per method, runs entries: its index in each run, olds then news
}

func joinRuns(olds, news []*Flat) *joined {
	j := &joined{olds: olds, news: news}
	byKey := make(map[methodKey]int)
	runs := len(olds) + len(news)
	j.runs = runs
	for r, f := range append(olds[:len(olds):len(olds)], news...) {
		for m, md := range f.methods {
			if !f.stats[m].present {
				continue
			}
			k := methodKey{md.Name, md.Signature}
			i, ok := byKey[k]
			if !ok {
				i = len(j.keys)
				byKey[k] = i
				j.keys = append(j.keys, k)
				j.overloaded = append(j.overloaded, false)
				for range runs {
					j.at = append(j.at, -1)
				}
			}
			j.at[i*runs+r] = int32(m)
			j.overloaded[i] = j.overloaded[i] || md.Overloaded
		}
	}
	return j
}

// values returns method i's value v in each run of a side (0 where it is
// absent) and whether it ran in any of them.
func (j *joined) values(i int, old bool, v func(*stat) int64) ([]int64, bool) {
	all := j.at[i*j.runs : (i+1)*j.runs]
	runs, at := j.news, all[len(j.olds):]
	if old {
		runs, at = j.olds, all[:len(j.olds)]
	}
	out := make([]int64, len(runs))
	present := false
	for r, m := range at {
		if m >= 0 {
			out[r] = v(&runs[r].stats[m])
			present = true
		}
	}
	return out, present
}

// rows builds one row per method.
func (j *joined) rows(clocks []Basis) []DiffRow {
	rows := make([]DiffRow, len(j.keys))
	for i, k := range j.keys {
		row := &rows[i]
		*row = DiffRow{Method: k.name, Signature: k.sig, Overloaded: j.overloaded[i], Status: StatusBoth}
		at := j.at[i*j.runs : (i+1)*j.runs]
		if len(at) == 2 { // one run per side, today's diff: no per-run slices
			switch {
			case at[0] < 0:
				row.Status = StatusNewOnly
			case at[1] < 0:
				row.Status = StatusOldOnly
			}
		}
		change := func(v func(*stat) int64) Change {
			if len(at) == 2 {
				var o, n int64
				if at[0] >= 0 {
					o = v(&j.olds[0].stats[at[0]])
				}
				if at[1] >= 0 {
					n = v(&j.news[0].stats[at[1]])
				}
				return newChange(float64(o), float64(n))
			}
			o, inOld := j.values(i, true, v)
			n, inNew := j.values(i, false, v)
			switch {
			case !inOld:
				row.Status = StatusNewOnly
			case !inNew:
				row.Status = StatusOldOnly
			}
			return runChange(o, n)
		}
		row.Excl = make([]Change, len(clocks))
		row.Incl = make([]Change, len(clocks))
		for c, b := range clocks {
			row.Excl[c] = change(func(s *stat) int64 { return s.excl.at(b) })
			row.Incl[c] = change(func(s *stat) int64 { return s.incl.at(b) })
		}
		row.Calls = change(func(s *stat) int64 { return s.calls })
	}
	return rows
}

// describeClocks names what a profile measures, for messages: "the
// wall+cpu clock", or "sample counts".
func describeClocks(clocks []Basis) string {
	if len(clocks) == 1 && clocks[0] == Samples {
		return "sample counts"
	}
	return "the " + strings.Join(clockNames(clocks), "+") + " clock"
}

// sampledFlat reports whether f is of a sampled profile, which counts
// samples, rather than of a method trace.
func sampledFlat(f *Flat) bool { return slices.Contains(f.Clocks, Samples) }

// cpuKind says what the cpu clock of f measures.
func cpuKind(f *Flat) string {
	if sampledFlat(f) {
		return "cpu times estimated from its samples"
	}
	return "measured cpu times"
}

func commonClocks(a, b []Basis) []Basis {
	var out []Basis
	for _, c := range a {
		if slices.Contains(b, c) {
			out = append(out, c)
		}
	}
	return out
}

// filter drops the rows whose time changes on the first clock are both
// under limit ns.
func (r *DiffReport) filter(limit int64) {
	if limit <= 0 {
		return
	}
	kept := r.Rows[:0]
	for _, row := range r.Rows {
		if math.Abs(row.Excl[0].Delta) >= float64(limit) || math.Abs(row.Incl[0].Delta) >= float64(limit) {
			kept = append(kept, row)
		}
	}
	r.Hidden = len(r.Rows) - len(kept)
	r.Rows = kept
}

// sortDiff orders rows by the absolute change of the sort key on the first
// clock, largest first, then by name.
func sortDiff(rows []DiffRow, by string) {
	// Sort indices, then move each row once: a DiffRow is about 200 bytes,
	// which SortFunc would copy on every comparison and swap.
	idx := make([]int32, len(rows))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(i, j int32) int {
		a, b := &rows[i], &rows[j]
		var c int
		excl := compareAbs(b.Excl[0].Delta, a.Excl[0].Delta)
		incl := compareAbs(b.Incl[0].Delta, a.Incl[0].Delta)
		switch by {
		case SortIncl:
			c = cmp.Or(incl, excl)
		case SortCalls:
			c = cmp.Or(compareAbs(b.Calls.Delta, a.Calls.Delta), excl)
		case SortName:
		default:
			c = cmp.Or(excl, incl)
		}
		return cmp.Or(c, cmp.Compare(a.Method, b.Method), cmp.Compare(a.Signature, b.Signature))
	})
	// Apply the permutation in place, cycle by cycle: rows[k] takes
	// rows[idx[k]]; a done position is marked -1.
	for k := range idx {
		if idx[k] < 0 {
			continue
		}
		tmp := rows[k]
		at := k
		for {
			from := int(idx[at])
			idx[at] = -1
			if from == k {
				rows[at] = tmp
				break
			}
			rows[at] = rows[from]
			at = from
		}
	}
}

// compareAbs compares |a| and |b|; changes are never NaN, which spares
// cmp.Compare's NaN checks in the sort's comparisons.
func compareAbs(a, b float64) int {
	a, b = math.Abs(a), math.Abs(b)
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// samplingNotes says which runs of a side look recorded in sampling mode,
// with the first one's note.
func samplingNotes(side string, runs []*Flat) []string {
	var first string
	n := 0
	for _, f := range runs {
		if note := SamplingNote(f.sampling); note != "" {
			if n == 0 {
				first = note
			}
			n++
		}
	}
	switch {
	case n == 0:
		return nil
	case len(runs) == 1:
		return []string{side + ": " + first}
	}
	return []string{fmt.Sprintf("%s: %d of %d runs look like%s", side, n, len(runs), strings.TrimPrefix(first, "looks like"))}
}
