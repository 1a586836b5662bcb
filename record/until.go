package record

import (
	"bufio"
	"context"
	"io"
	"os"
	"time"
)

// What stopped a recording (Until).
const (
	StoppedByEnter     = "Enter"
	StoppedByDuration  = "--duration"
	StoppedByInterrupt = "Ctrl-C"
)

// Until waits for the first of: a line on in (Enter), the deadline (when
// not zero), an interrupt on intr, or the end of ctx, and says which
// ("" for ctx). An in that ends or fails without a whole line stops
// nothing: a recording whose standard input is /dev/null or a finished
// pipe runs until the deadline or an interrupt.
func Until(ctx context.Context, in io.Reader, deadline time.Time, intr <-chan os.Signal) string {
	enter := make(chan struct{}, 1)
	if in != nil {
		// The read cannot be cancelled: the goroutine ends with the
		// process, or at the line it waits for.
		go func() {
			if _, err := bufio.NewReader(in).ReadString('\n'); err == nil {
				enter <- struct{}{}
			}
		}()
	}
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-enter:
		return StoppedByEnter
	case <-timeout:
		return StoppedByDuration
	case <-intr:
		return StoppedByInterrupt
	case <-ctx.Done():
		return ""
	}
}
