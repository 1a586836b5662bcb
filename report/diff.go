package report

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Row status in a diff.
const (
	StatusBoth    = "both"     // the method ran in both traces
	StatusOldOnly = "old-only" // the method ran only in the old trace
	StatusNewOnly = "new-only" // the method ran only in the new trace
)

// DiffReport compares the flat profiles (all threads combined) of two
// traces. Every slice has one value per clock, in Clocks order: the clocks
// both traces have.
type DiffReport struct {
	Old    string   `json:"old"`
	New    string   `json:"new"`
	Clocks []string `json:"clocks"`
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

// Change is a value in the old and new trace. Pct is the change in percent
// of Old, nil when Old is zero.
type Change struct {
	Old   int64    `json:"old"`
	New   int64    `json:"new"`
	Delta int64    `json:"delta"`
	Pct   *float64 `json:"pct"`
}

func newChange(before, after int64) Change {
	c := Change{Old: before, New: after, Delta: after - before}
	if before != 0 {
		p := 100 * float64(c.Delta) / float64(before)
		c.Pct = &p
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
}

// Diff compares two profiles method by method; methods are matched by name
// and signature.
func Diff(before, after *Profile, opt DiffOptions) (*DiffReport, error) {
	if err := checkSort(opt.Sort); err != nil {
		return nil, err
	}
	if opt.Sort == "" {
		opt.Sort = SortExcl
	}
	clocks := commonClocks(before.Clocks, after.Clocks)
	if len(clocks) == 0 {
		return nil, fmt.Errorf("%s has %s and %s %s: no clock in common to compare",
			before.Name, describeClocks(before.Clocks), after.Name, describeClocks(after.Clocks))
	}
	noCalls := before.CallsUnknown || after.CallsUnknown
	if noCalls && opt.Sort == SortCalls {
		return nil, ErrNoCalls
	}
	if clocks[0] == Samples && opt.Threshold.Nanos > 0 {
		return nil, fmt.Errorf("threshold %s: %w", time.Duration(opt.Threshold.Nanos), ErrThresholdUnit)
	}
	ost, ototal := before.stats()
	nst, ntotal := after.stats()
	r := &DiffReport{Old: before.Name, New: after.Name, Clocks: clockNames(clocks), CallsUnknown: noCalls,
		Sort: opt.Sort, Threshold: opt.Threshold, Total: changes(ototal, ntotal, clocks)}
	r.Rows = diffRows(before, after, ost, nst, clocks)
	r.Methods = len(r.Rows)
	for _, row := range r.Rows {
		switch row.Status {
		case StatusOldOnly:
			r.OldOnly++
		case StatusNewOnly:
			r.NewOnly++
		}
	}
	r.filter(opt.Threshold.limit(ototal.at(clocks[0])))
	sortDiff(r.Rows, opt.Sort)
	if opt.Limit > 0 && len(r.Rows) > opt.Limit {
		r.Rows = r.Rows[:opt.Limit]
	}
	return r, nil
}

// describeClocks names what a profile measures, for messages: "the
// wall+cpu clock", or "sample counts".
func describeClocks(clocks []Basis) string {
	if len(clocks) == 1 && clocks[0] == Samples {
		return "sample counts"
	}
	return "the " + strings.Join(clockNames(clocks), "+") + " clock"
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

func changes(before, after times, clocks []Basis) []Change {
	out := make([]Change, len(clocks))
	for i, c := range clocks {
		out[i] = newChange(before.at(c), after.at(c))
	}
	return out
}

// diffRows joins the methods that ran in either profile.
func diffRows(before, after *Profile, ost, nst []stat, clocks []Basis) []DiffRow {
	type pair struct{ o, n int }
	byKey := make(map[methodKey]*pair)
	var keys []methodKey
	add := func(p *Profile, st []stat, isNew bool) {
		for m, md := range p.Methods {
			if !st[m].present {
				continue
			}
			k := methodKey{md.Name, md.Signature}
			pr := byKey[k]
			if pr == nil {
				pr = &pair{-1, -1}
				byKey[k] = pr
				keys = append(keys, k)
			}
			if isNew {
				pr.n = m
			} else {
				pr.o = m
			}
		}
	}
	add(before, ost, false)
	add(after, nst, true)
	rows := make([]DiffRow, 0, len(keys))
	for _, k := range keys {
		pr := byKey[k]
		var os, ns stat
		row := DiffRow{Method: k.name, Signature: k.sig, Status: StatusBoth}
		if pr.o >= 0 {
			os = ost[pr.o]
			row.Overloaded = before.Methods[pr.o].Overloaded
		} else {
			row.Status = StatusNewOnly
		}
		if pr.n >= 0 {
			ns = nst[pr.n]
			row.Overloaded = row.Overloaded || after.Methods[pr.n].Overloaded
		} else {
			row.Status = StatusOldOnly
		}
		row.Excl = changes(os.excl, ns.excl, clocks)
		row.Incl = changes(os.incl, ns.incl, clocks)
		row.Calls = newChange(os.calls, ns.calls)
		rows = append(rows, row)
	}
	return rows
}

// filter drops the rows whose time changes on the first clock are both
// under limit ns.
func (r *DiffReport) filter(limit int64) {
	if limit <= 0 {
		return
	}
	kept := r.Rows[:0]
	for _, row := range r.Rows {
		if abs(row.Excl[0].Delta) >= limit || abs(row.Incl[0].Delta) >= limit {
			kept = append(kept, row)
		}
	}
	r.Hidden = len(r.Rows) - len(kept)
	r.Rows = kept
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// sortDiff orders rows by the absolute change of the sort key on the first
// clock, largest first, then by name.
func sortDiff(rows []DiffRow, by string) {
	slices.SortFunc(rows, func(a, b DiffRow) int {
		var c int
		excl := cmp.Compare(abs(b.Excl[0].Delta), abs(a.Excl[0].Delta))
		incl := cmp.Compare(abs(b.Incl[0].Delta), abs(a.Incl[0].Delta))
		switch by {
		case SortIncl:
			c = cmp.Or(incl, excl)
		case SortCalls:
			c = cmp.Or(cmp.Compare(abs(b.Calls.Delta), abs(a.Calls.Delta)), excl)
		case SortName:
		default:
			c = cmp.Or(excl, incl)
		}
		return cmp.Or(c, cmp.Compare(a.Method, b.Method), cmp.Compare(a.Signature, b.Signature))
	})
}
