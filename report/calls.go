package report

import (
	"cmp"
	"regexp"
	"slices"
)

// TopLevelName names the caller of a thread's outermost frames.
const TopLevelName = "(top level)"

// CallsReport lists, for each method matching a pattern, its callers and
// callees with their shares of its inclusive time (Traceview's
// parents/children view). Times cover all threads; every slice of times has
// one value per clock, in Clocks order.
type CallsReport struct {
	Header
	Pattern string        `json:"pattern"`
	Total   []int64       `json:"total_ns"`
	Matched int           `json:"matched"` // methods matching, before the limit
	Methods []CallsMethod `json:"methods"`
}

// CallsMethod is one matching method with its parents and children.
type CallsMethod struct {
	Method     string     `json:"method"`
	Signature  string     `json:"signature"`
	Overloaded bool       `json:"overloaded,omitempty"`
	Calls      int64      `json:"calls"`
	Recursive  int64      `json:"recursive_calls"`
	Incl       []int64    `json:"incl_ns"`
	InclPct    []float64  `json:"incl_pct"` // of the total
	Self       []int64    `json:"self_ns"`  // the exclusive time
	SelfPct    []float64  `json:"self_pct"` // of Incl
	Parents    []Relative `json:"parents"`
	Children   []Relative `json:"children"`
}

// Relative is a caller or callee of a method.
type Relative struct {
	Method     string    `json:"method"` // TopLevelName for the top level
	Signature  string    `json:"signature"`
	Overloaded bool      `json:"overloaded,omitempty"`
	TopLevel   bool      `json:"top_level,omitempty"`
	Calls      int64     `json:"calls"`
	Time       []int64   `json:"time_ns"`
	Pct        []float64 `json:"pct"` // of the method's inclusive time
}

// CallsOptions select the methods of a calls report.
type CallsOptions struct {
	Pattern *regexp.Regexp // matched anywhere in <class>.<method>
	Limit   int            // methods to show, largest inclusive time first; 0 for all
}

// Calls builds the parents/children report.
func (p *Profile) Calls(opt CallsOptions) *CallsReport {
	st, total := p.stats()
	r := &CallsReport{Header: p.header(), Pattern: opt.Pattern.String(), Total: pick(total, p.Clocks), Methods: []CallsMethod{}}
	var match []int32
	for m := range p.Methods {
		if st[m].present && opt.Pattern.MatchString(p.Methods[m].Name) {
			match = append(match, int32(m))
		}
	}
	r.Matched = len(match)
	if len(match) == 0 {
		return r
	}
	slices.SortFunc(match, func(a, b int32) int {
		return cmp.Or(cmp.Compare(st[b].incl.at(p.Clocks[0]), st[a].incl.at(p.Clocks[0])), p.byName(a, b))
	})
	if opt.Limit > 0 && len(match) > opt.Limit {
		match = match[:opt.Limit]
	}
	at := make(map[int32]int, len(match))
	for i, m := range match {
		at[m] = i
		r.Methods = append(r.Methods, p.callsMethod(m, &st[m], total))
	}
	for k, e := range p.edges() {
		if i, ok := at[k.callee]; ok {
			cm := &r.Methods[i]
			cm.Parents = append(cm.Parents, p.relative(k.caller, e.calls, e.asParent, st[k.callee].incl))
		}
		if i, ok := at[k.caller]; ok {
			cm := &r.Methods[i]
			cm.Children = append(cm.Children, p.relative(k.callee, e.calls, e.asChild, st[k.caller].incl))
		}
	}
	for i := range r.Methods {
		p.sortRelatives(r.Methods[i].Parents)
		p.sortRelatives(r.Methods[i].Children)
	}
	return r
}

func (p *Profile) byName(a, b int32) int {
	ma, mb := &p.Methods[a], &p.Methods[b]
	return cmp.Or(cmp.Compare(ma.Name, mb.Name), cmp.Compare(ma.Signature, mb.Signature))
}

func (p *Profile) callsMethod(m int32, s *stat, total times) CallsMethod {
	md := p.Methods[m]
	cm := CallsMethod{
		Method: md.Name, Signature: md.Signature, Overloaded: md.Overloaded,
		Calls: s.calls, Recursive: s.recurs,
		Incl: pick(s.incl, p.Clocks), InclPct: pct(s.incl, total, p.Clocks),
		Self: pick(s.excl, p.Clocks), SelfPct: pct(s.excl, s.incl, p.Clocks),
		Parents: []Relative{}, Children: []Relative{},
	}
	return cm
}

func (p *Profile) relative(m int32, calls int64, t, incl times) Relative {
	r := Relative{Calls: calls, Time: pick(t, p.Clocks), Pct: pct(t, incl, p.Clocks)}
	if m == topLevel {
		r.Method, r.TopLevel = TopLevelName, true
		return r
	}
	md := p.Methods[m]
	r.Method, r.Signature, r.Overloaded = md.Name, md.Signature, md.Overloaded
	return r
}

// sortRelatives orders by time on the first clock, then calls, then name.
func (p *Profile) sortRelatives(rs []Relative) {
	slices.SortFunc(rs, func(a, b Relative) int {
		return cmp.Or(cmp.Compare(b.Time[0], a.Time[0]), cmp.Compare(b.Calls, a.Calls),
			cmp.Compare(a.Method, b.Method), cmp.Compare(a.Signature, b.Signature))
	})
}
