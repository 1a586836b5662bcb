package parser

import "fmt"

// ThreadID is a thread id as written in a record: Dalvik's small thread id
// (u1 in v1 files), the OS tid truncated to 16 bits, or (ART 2023+) a
// per-trace index. Use [Header.Thread] to find its table entry.
type ThreadID uint32

// MethodID is a method id with the two action bits cleared: a Method* or
// ArtMethod* pointer in old files, index<<2 in ART 6.0 and later.
type MethodID uint64

// Action is what a record says happened to a method.
type Action uint8

const (
	Enter     Action = 0 // the method was entered
	Exit      Action = 1 // the method returned normally
	Unwind    Action = 2 // the method was left by an exception
	BadAction Action = 3 // no writer emits it: only corruption produces it
)

var actionNames = [...]string{"enter", "exit", "unwind", "bad-action"}

func (a Action) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return fmt.Sprintf("action(%d)", uint8(a))
}

// Clock says which times the records carry.
type Clock uint8

const (
	ClockUnknown   Clock = iota // not known (a streaming file without its summary)
	ClockThreadCPU              // thread CPU time only
	ClockWall                   // wall time only
	ClockDual                   // both: thread CPU time, then wall time
)

var clockNames = [...]string{"unknown", "thread-cpu", "wall", "dual"}

func (c Clock) String() string {
	if int(c) < len(clockNames) {
		return clockNames[c]
	}
	return fmt.Sprintf("clock(%d)", uint8(c))
}

// HasWall reports whether records carry a wall time.
func (c Clock) HasWall() bool { return c == ClockWall || c == ClockDual }

// HasCPU reports whether records carry a thread CPU time.
func (c Clock) HasCPU() bool { return c == ClockThreadCPU || c == ClockDual }

// ParseClock reads a clock name as used by the key text and the --clock flag.
// "global" is the earliest Dalvik's name for a wall clock; "cpu" is short
// for thread-cpu.
func ParseClock(s string) (Clock, bool) {
	switch s {
	case "thread-cpu", "cpu":
		return ClockThreadCPU, true
	case "wall", "global":
		return ClockWall, true
	case "dual":
		return ClockDual, true
	}
	return ClockUnknown, false
}

// Record is one method record, as written: a small value with no pointers.
// Times are raw counters in units of Header.TimeUnit. In legacy files they
// are 32-bit and may wrap (Header.TimeBits == 32); they may go backwards.
// Package convert repairs both.
type Record struct {
	Offset int64    // byte offset of the record in the decompressed input
	Thread ThreadID // record thread id
	Method MethodID // method id, action bits cleared
	Action Action
	CPU    uint64 // thread CPU time since the thread's first record (if the clock has it)
	Wall   uint64 // wall time since the trace start (if the clock has it)
}

func (r Record) String() string {
	return fmt.Sprintf("@%#x thread=%d %s %#x cpu=%d wall=%d", r.Offset, r.Thread, r.Action, uint64(r.Method), r.CPU, r.Wall)
}
