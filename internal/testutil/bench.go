package testutil

import "testing"

// PerRecord reports a benchmark's time per record of its trace, and the
// CPU time the process spent per record (all goroutines, the runtime's
// included) from the call on: call it as defer testutil.PerRecord(b, n)()
// just before the loop. With more than one CPU the second shows what the
// goroutines' hand-offs cost, which the first hides. Where the system
// gives no CPU time, only the first is reported.
func PerRecord(b *testing.B, records int) func() {
	cpu0, ok := cpuTime()
	return func() {
		n := float64(b.N) * float64(records)
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/record")
		if cpu1, ok1 := cpuTime(); ok && ok1 {
			b.ReportMetric(float64(cpu1-cpu0)/n, "cpu-ns/record")
		}
	}
}
