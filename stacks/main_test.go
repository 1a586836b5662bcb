package stacks_test

import (
	"os"
	"runtime"
	"testing"
)

// TestMain runs the tests with at least two Ps, so that convert.Run takes
// its pipelined path (decoding and exporting on goroutines of their own)
// even on a one-CPU machine; tests that want one goroutine ask for Serial.
func TestMain(m *testing.M) {
	if runtime.GOMAXPROCS(0) < 2 {
		runtime.GOMAXPROCS(2)
	}
	os.Exit(m.Run())
}
