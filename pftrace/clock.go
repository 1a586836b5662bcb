package pftrace

import (
	"slices"
	"sort"
	"strconv"
)

// Builtin clock ids (protos/perfetto/common/builtin_clock.proto).
const (
	clockRealtime      = 1
	clockMonotonic     = 3
	clockMonotonicRaw  = 5
	clockBoottime      = 6
	firstSequenceClock = 64  // clock ids [64, 128) are scoped to a sequence
	endSequenceClock   = 128 // ids from 128 on are reserved
)

// clockKey is a clock domain: a builtin clock, or a sequence-scoped one
// with its sequence.
type clockKey struct {
	id  uint32
	seq uint32
}

func keyOf(id, seq uint32) clockKey {
	if id >= firstSequenceClock && id < endSequenceClock {
		return clockKey{id, seq}
	}
	return clockKey{id, 0}
}

// clocks converts timestamps to the trace clock with the trace's clock
// snapshots, the way trace_processor does (importers/common/clock_tracker,
// util/clock_synchronizer; docs/formats.md §20.4):
//
//   - The trace clock is BOOTTIME, or the primary_trace_clock of a
//     snapshot read before any timestamp had to be converted.
//   - Snapshots that hold the same set of clocks form a group; two clocks
//     in a group are related, and a conversion follows the shortest chain of
//     related clocks (breadth first).
//   - Each step uses the group's snapshot with the latest time at or before
//     the value on the source clock (the first snapshot for a value before
//     all of them), and keeps the difference from it: t' = t − s_src + s_dst.
//   - A clock whose value goes back between two snapshots of a group cannot
//     be a source in that group (REALTIME jumping back).
//   - BOOTTIME converts with no offset when no snapshot relates it to the
//     trace clock (trace_processor's fallback for proto traces); any other
//     clock with no chain to the trace clock does not convert: the sample
//     is not read, rather than given a guessed offset.
//
// Conversions use the snapshots read so far, as trace_processor's do when it
// tokenizes a packet; a sample whose clock no snapshot relates yet is
// converted at the end with all of them.
type clocks struct {
	trace     clockKey
	converted bool // a conversion happened: the trace clock is fixed

	groups  []*clockGroup
	byClock map[clockKey][]*clockGroup
	units   map[clockKey]int64 // unit_multiplier_ns, when not 1
	incr    map[clockKey]int64 // incremental clocks: the running value, in units

	// The last conversion's path, cached until the next snapshot.
	cache map[clockKey]*clockPath
}

// clockGroup is the snapshots of one set of clocks.
type clockGroup struct {
	ids      []clockKey // sorted
	ts       [][]int64  // per clock of ids: its time in each snapshot, in ns
	nonMono  []bool     // per clock: went back, so not usable as a source
	snapshot int
}

// clockPath is a chain of conversions from one clock to the trace clock.
type clockPath struct {
	hops []hop
	// The last value converted and the range around it where the same
	// snapshots apply, for the common case of nearby timestamps.
	lo, hi int64
	delta  int64
	valid  bool
}

type hop struct {
	g        *clockGroup
	from, to int
}

func newClocks() *clocks {
	return &clocks{trace: clockKey{clockBoottime, 0}, byClock: map[clockKey][]*clockGroup{},
		units: map[clockKey]int64{}, incr: map[clockKey]int64{}, cache: map[clockKey]*clockPath{}}
}

// snapClock is one clock of a ClockSnapshot packet.
type snapClock struct {
	key  clockKey
	ts   int64 // in the clock's units
	unit int64
	incr bool
}

// add records a ClockSnapshot. primary is its primary_trace_clock (0 when
// unset).
func (c *clocks) add(cl []snapClock, primary uint32) {
	if primary != 0 && !c.converted {
		c.trace = clockKey{primary, 0}
	}
	if len(cl) == 0 {
		return
	}
	ids := make([]clockKey, len(cl))
	for i, x := range cl {
		ids[i] = x.key
		if x.unit > 1 {
			c.units[x.key] = x.unit
		}
		if x.incr {
			c.incr[x.key] = x.ts
		}
	}
	slices.SortFunc(ids, cmpKey)
	ids = slices.Compact(ids)
	var g *clockGroup
	for _, h := range c.byClock[ids[0]] {
		if slices.Equal(h.ids, ids) {
			g = h
			break
		}
	}
	if g == nil {
		g = &clockGroup{ids: ids, ts: make([][]int64, len(ids)), nonMono: make([]bool, len(ids))}
		c.groups = append(c.groups, g)
		for _, id := range ids {
			c.byClock[id] = append(c.byClock[id], g)
		}
	}
	for _, x := range cl {
		i, _ := slices.BinarySearchFunc(g.ids, x.key, cmpKey)
		if len(g.ts[i]) > g.snapshot {
			continue // the same clock twice in one snapshot: the first counts
		}
		ns := mulSat(x.ts, max(x.unit, 1))
		if n := len(g.ts[i]); n > 0 && ns < g.ts[i][n-1] {
			g.nonMono[i] = true
		}
		g.ts[i] = append(g.ts[i], ns)
	}
	g.snapshot++
	clear(c.cache)
}

func cmpKey(a, b clockKey) int {
	if a.id != b.id {
		return int(a.id) - int(b.id)
	}
	return int(a.seq) - int(b.seq)
}

// toNanos turns a packet timestamp on clock k into ns on that clock:
// units applied, and incremental clocks advanced.
func (c *clocks) toNanos(k clockKey, ts int64) int64 {
	if v, ok := c.incr[k]; ok {
		v += ts
		c.incr[k] = v
		ts = v
	}
	if u, ok := c.units[k]; ok {
		return mulSat(ts, u)
	}
	return ts
}

// convert converts ns on clock k to the trace clock.
func (c *clocks) convert(k clockKey, ns int64) (int64, bool) {
	c.converted = true
	if k == c.trace {
		return ns, true
	}
	p, ok := c.cache[k]
	if !ok {
		p = c.path(k)
		c.cache[k] = p
	}
	if p == nil {
		if k == (clockKey{clockBoottime, 0}) {
			return ns, true
		}
		return 0, false
	}
	if p.valid && ns >= p.lo && ns < p.hi {
		return ns + p.delta, true
	}
	v, lo, hi := ns, int64(-1<<63), int64(1<<63-1)
	var total int64
	for _, h := range p.hops {
		src, dst := h.g.ts[h.from], h.g.ts[h.to]
		i := sort.Search(len(src), func(j int) bool { return src[j] > v })
		if i > 0 {
			i--
		}
		// v stays with snapshot i while it is in [src[i], src[i+1]), the
		// first snapshot taking everything before it.
		hl, hh := int64(-1<<63), int64(1<<63-1)
		if i > 0 {
			hl = src[i]
		}
		if i+1 < len(src) {
			hh = src[i+1]
		}
		lo, hi = max(lo, subSat(hl, total)), min(hi, subSat(hh, total))
		d := dst[i] - src[i]
		v += d
		total += d
	}
	p.lo, p.hi, p.delta, p.valid = lo, hi, total, true
	return v, true
}

// path finds the shortest chain of related clocks from k to the trace
// clock, or nil.
func (c *clocks) path(k clockKey) *clockPath {
	type node struct {
		k    clockKey
		prev int
		h    hop
	}
	q := []node{{k: k, prev: -1}}
	seen := map[clockKey]bool{k: true}
	for i := 0; i < len(q) && i < 64; i++ {
		cur := q[i].k
		for _, g := range c.byClock[cur] {
			from, _ := slices.BinarySearchFunc(g.ids, cur, cmpKey)
			if g.nonMono[from] {
				continue
			}
			for to, id := range g.ids {
				if seen[id] {
					continue
				}
				seen[id] = true
				q = append(q, node{id, i, hop{g, from, to}})
				if id == c.trace {
					var hops []hop
					for j := len(q) - 1; q[j].prev >= 0; j = q[j].prev {
						hops = append(hops, q[j].h)
					}
					slices.Reverse(hops)
					return &clockPath{hops: hops}
				}
			}
		}
	}
	return nil
}

// clockName names a clock id for messages.
func clockName(id uint32) string {
	switch id {
	case 1:
		return "REALTIME"
	case 2:
		return "REALTIME_COARSE"
	case clockMonotonic:
		return "MONOTONIC"
	case 4:
		return "MONOTONIC_COARSE"
	case clockMonotonicRaw:
		return "MONOTONIC_RAW"
	case clockBoottime:
		return "BOOTTIME"
	}
	return "clock " + strconv.Itoa(int(id))
}

func mulSat(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	r := a * b
	if r/b != a {
		if (a < 0) != (b < 0) {
			return -1 << 63
		}
		return 1<<63 - 1
	}
	return r
}

func subSat(a, b int64) int64 {
	r := a - b
	if (b > 0 && r > a) || (b < 0 && r < a) {
		if b > 0 {
			return -1 << 63
		}
		return 1<<63 - 1
	}
	return r
}
