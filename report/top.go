package report

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/atrace2/atrace2/stream"
)

// Sort orders of the top and diff tables.
const (
	SortExcl  = "excl"  // exclusive time (diff: its absolute change), largest first
	SortIncl  = "incl"  // inclusive time (diff: its absolute change), largest first
	SortCalls = "calls" // calls (diff: their absolute change), most first
	SortName  = "name"  // method name, then signature, A to Z
	// SortOffCPU (top only) orders by exclusive off-CPU time, largest
	// first: SortExcl on the off-CPU clock, which it makes the first
	// (Profile.UseOffCPU).
	SortOffCPU = "offcpu"
)

// TopOptions select the rows of a top report.
type TopOptions struct {
	Sort      string // SortExcl (default), SortIncl, SortCalls, SortName or SortOffCPU
	Limit     int    // rows per table; 0 for every method
	PerThread bool   // one table per thread instead of all threads combined
}

// TopReport is the flat profile: one table for all threads, or one per
// thread. Every slice of times has one value per clock, in Clocks order.
type TopReport struct {
	Header
	Sort   string     `json:"sort"`
	Tables []TopTable `json:"tables"`
}

// Header is what the top and calls reports say first: the trace, its
// clocks and the caveats. Its fields come first in their JSON objects.
type Header struct {
	Trace  string   `json:"trace"`
	Clocks []string `json:"clocks"`
	// CallsUnknown marks a sampled profile: every calls field (calls,
	// recursive calls, means per call) is 0 because samples do not count
	// calls.
	CallsUnknown bool     `json:"calls_unknown,omitempty"`
	Notes        []string `json:"notes,omitempty"` // caveats, printed under the header
	// Focus says what --thread, --from/--to and --root kept
	// (stream.FocusStats.Summary); "" without a focus.
	Focus string `json:"focus,omitempty"`
	// SamplingIntervalNanos is, for a trace that looks recorded in
	// sampling mode, the typical step between samples (Notes say so);
	// 0 otherwise.
	SamplingIntervalNanos int64 `json:"sampling_interval_ns,omitempty"`
}

// header is the report header of p.
func (p *Profile) header() Header {
	return Header{Trace: p.Name, Clocks: clockNames(p.Clocks), CallsUnknown: p.CallsUnknown, Notes: p.Notes, Focus: p.Focus,
		SamplingIntervalNanos: samplingInterval(p.Sampling)}
}

// TopTable is the profile of one thread, or of all threads when Thread is
// nil.
type TopTable struct {
	Thread *ThreadInfo `json:"thread,omitempty"`
	// Threads is the number of threads summed in the table; 0 when the
	// profile does not record threads.
	Threads int      `json:"threads"`
	Total   []int64  `json:"total_ns"`
	Methods int      `json:"methods"` // methods with time or calls, before the limit
	Rows    []TopRow `json:"rows"`
}

// ThreadInfo names a thread.
type ThreadInfo struct {
	TID  uint32 `json:"tid"`
	Name string `json:"name"`
}

// TopRow is one method's line.
type TopRow struct {
	Method     string    `json:"method"`
	Signature  string    `json:"signature"`
	Overloaded bool      `json:"overloaded,omitempty"`
	Calls      int64     `json:"calls"`
	Recursive  int64     `json:"recursive_calls"`
	Excl       []int64   `json:"excl_ns"`
	ExclPct    []float64 `json:"excl_pct"` // of the table's total
	Incl       []int64   `json:"incl_ns"`
	InclPct    []float64 `json:"incl_pct"` // of the table's total
	MeanExcl   []int64   `json:"mean_excl_ns"`
	// Idle marks a well-known method that waits (IsIdle): its time is a
	// thread's idle time, not work.
	Idle bool `json:"idle,omitempty"`
}

// idleMethods are the well-known methods in which a thread waits for a
// lock, a message, a condition or a timeout: at the top of every table
// summed over the threads of an app, where they are idle time.
var idleMethods = map[string]bool{
	"java.util.concurrent.locks.LockSupport.park":      true,
	"java.util.concurrent.locks.LockSupport.parkNanos": true,
	"java.util.concurrent.locks.LockSupport.parkUntil": true,
	"sun.misc.Unsafe.park":                             true,
	"jdk.internal.misc.Unsafe.park":                    true,
	"java.lang.Thread.parkFor$":                        true,
	"java.lang.Object.wait":                            true,
	"java.lang.Thread.sleep":                           true,
	"java.lang.VMThread.sleep":                         true,
	"android.os.SystemClock.sleep":                     true,
	"android.os.MessageQueue.nativePollOnce":           true,
	"libcore.io.Linux.poll":                            true,
	"libcore.io.Posix.poll":                            true,
}

// IsIdle reports whether a method (<class>.<method>) is one in which a
// thread is known to wait: parking, Object.wait, sleeping, polling its
// message queue or a file descriptor.
func IsIdle(method string) bool { return idleMethods[method] }

// ErrNoCalls refuses to sort a sampled profile by the calls it does not
// count.
var ErrNoCalls = fmt.Errorf("sort order %q: a sampled profile counts samples, not calls", SortCalls)

// checkSort returns an error for an unknown sort order.
func checkSort(s string) error {
	switch s {
	case "", SortExcl, SortIncl, SortCalls, SortName:
		return nil
	}
	return fmt.Errorf("unknown sort order %q (want excl, incl, calls or name)", s)
}

// Top builds the flat profile.
func (p *Profile) Top(opt TopOptions) (*TopReport, error) {
	if opt.Sort == SortOffCPU {
		if err := p.UseOffCPU(); err != nil {
			return nil, fmt.Errorf("sort order %q: %w", SortOffCPU, err)
		}
	} else if err := checkSort(opt.Sort); err != nil {
		return nil, err
	}
	if opt.Sort == "" {
		opt.Sort = SortExcl
	}
	if opt.Sort == SortCalls && p.CallsUnknown {
		return nil, ErrNoCalls
	}
	r := &TopReport{Header: p.header(), Sort: opt.Sort}
	if !opt.PerThread {
		st, total := p.stats()
		var present []int32
		for m := range st {
			if st[m].present {
				present = append(present, int32(m))
			}
		}
		r.Tables = []TopTable{p.topTable(st, present, total, opt)}
		r.Tables[0].Threads = p.knownThreads()
		return r, nil
	}
	p.eachThreadStats(func(i int, st []stat, present []int32, total times) {
		if len(present) == 0 {
			// A thread a focus (--from/--to, --root) left nothing of:
			// no table, as pprof, folded, speedscope and Perfetto leave
			// it out.
			return
		}
		th := &p.Threads[i]
		t := p.topTable(st, present, total, opt)
		t.Thread = &ThreadInfo{TID: uint32(th.ID), Name: th.Name}
		t.Threads = 1
		r.Tables = append(r.Tables, t)
	})
	// The busiest thread first: that is where a reader starts.
	slices.SortStableFunc(r.Tables, func(a, b TopTable) int {
		return cmp.Compare(b.Total[0], a.Total[0])
	})
	return r, nil
}

// topTable builds the table of one thread, or of all, from the stats of
// the methods present there, in increasing order.
func (p *Profile) topTable(st []stat, present []int32, total times, opt TopOptions) TopTable {
	t := TopTable{Total: pick(total, p.Clocks), Rows: []TopRow{}}
	for _, m := range present {
		t.Rows = append(t.Rows, p.topRow(int(m), &st[m], total))
	}
	t.Methods = len(t.Rows)
	sortTop(t.Rows, opt.Sort)
	if opt.Limit > 0 && len(t.Rows) > opt.Limit {
		t.Rows = t.Rows[:opt.Limit]
	}
	for i := range t.Rows {
		t.Rows[i].Idle = IsIdle(t.Rows[i].Method)
	}
	return t
}

func (p *Profile) topRow(m int, s *stat, total times) TopRow {
	md := p.Methods[m]
	var mean times
	for c := range mean {
		if s.calls > 0 {
			mean[c] = s.excl[c] / s.calls
		}
	}
	return TopRow{
		Method: md.Name, Signature: md.Signature, Overloaded: md.Overloaded,
		Calls: s.calls, Recursive: s.recurs,
		Excl: pick(s.excl, p.Clocks), ExclPct: pct(s.excl, total, p.Clocks),
		Incl: pick(s.incl, p.Clocks), InclPct: pct(s.incl, total, p.Clocks),
		MeanExcl: pick(mean, p.Clocks),
	}
}

// sortTop orders rows by the sort key on the first clock, largest first,
// then by name so that the order is total.
func sortTop(rows []TopRow, by string) {
	slices.SortFunc(rows, func(a, b TopRow) int {
		var c int
		switch by {
		case SortIncl:
			c = cmp.Or(cmp.Compare(b.Incl[0], a.Incl[0]), cmp.Compare(b.Excl[0], a.Excl[0]))
		case SortCalls:
			c = cmp.Or(cmp.Compare(b.Calls, a.Calls), cmp.Compare(b.Excl[0], a.Excl[0]))
		case SortName:
		default:
			c = cmp.Or(cmp.Compare(b.Excl[0], a.Excl[0]), cmp.Compare(b.Incl[0], a.Incl[0]))
		}
		return cmp.Or(c, cmp.Compare(a.Method, b.Method), cmp.Compare(a.Signature, b.Signature))
	})
}

func samplingInterval(s stream.Sampling) int64 {
	if !s.Likely {
		return 0
	}
	return s.Interval
}
