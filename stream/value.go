package stream

import "fmt"

// Value says which of the values a trace holds a view shows, as pprof's
// -sample_index picks a sample type: a clock's time, or the off-CPU time
// derived from two (--clock). The trace keeps every value; only the view
// picks. The zero value, ValueAuto, shows every clock the trace has, or
// the first of them (wall, else thread CPU) where a view shows one value.
type Value uint8

const (
	ValueAuto Value = iota // every clock the trace has; where a view shows one, wall if present, else thread CPU
	ValueWall              // wall time
	ValueCPU               // thread CPU time
	// ValueOffCPU is the off-CPU time, per stack max(0, exclusive wall −
	// exclusive thread CPU): the time the thread was on the stack but not
	// running. It needs both clocks; views that show several values show
	// the wall time after it, of which it is a part.
	ValueOffCPU
)

var valueNames = [...]string{"auto", "wall", "cpu", "offcpu"}

func (v Value) String() string {
	if int(v) < len(valueNames) {
		return valueNames[v]
	}
	return fmt.Sprintf("value(%d)", uint8(v))
}

// ParseValue reads a value by the name --clock gives it: auto (or dual,
// every clock), wall, cpu (or thread-cpu) or offcpu.
func ParseValue(s string) (Value, bool) {
	switch s {
	case "auto", "dual", "":
		return ValueAuto, true
	case "wall":
		return ValueWall, true
	case "cpu", "thread-cpu":
		return ValueCPU, true
	case "offcpu":
		return ValueOffCPU, true
	}
	return ValueAuto, false
}

// Clocks reports which of t's clocks a view of v shows: the ones v is
// made of, or with ValueAuto every one t has. It is an error (a
// *ValueError) when t lacks one of them.
func (v Value) Clocks(t *Trace) (wall, cpu bool, err error) {
	switch v {
	case ValueAuto:
		return t.HasWall, t.HasCPU, nil
	case ValueWall:
		wall = true
	case ValueCPU:
		cpu = true
	case ValueOffCPU:
		wall, cpu = true, true
	default:
		return false, false, &ValueError{Value: v}
	}
	if wall && !t.HasWall || cpu && !t.HasCPU {
		return false, false, &ValueError{Value: v, HasWall: t.HasWall, HasCPU: t.HasCPU}
	}
	return wall, cpu, nil
}

// ValueError refuses a value that a trace lacks the clocks for, or that a
// view cannot show (View set).
type ValueError struct {
	Value           Value
	HasWall, HasCPU bool   // the trace's clocks
	View            string // the view that cannot show the value, "" when the trace lacks a clock
	Why             string // why the view cannot, when View is set
}

func (e *ValueError) Error() string {
	if e.View != "" {
		return fmt.Sprintf("%s cannot show %s time: %s", e.View, e.Value, e.Why)
	}
	switch e.Value {
	case ValueOffCPU:
		return "off-CPU time needs a trace with both the wall and the thread-CPU clock"
	case ValueWall:
		return "the trace has no wall clock"
	case ValueCPU:
		return "the trace has no thread-CPU clock"
	}
	return fmt.Sprintf("unknown %v", e.Value)
}
