package pprofout

import (
	"github.com/google/pprof/profile"

	"github.com/atrace2/atrace2/internal/pprofweb"
)

// Report runs a pprof report (args such as -top -sample_index=wall) on a
// copy of p with pprof's own driver, in process, and returns its text: the
// tests read pprof's cumulative numbers from it.
func Report(p *profile.Profile, args ...string) (string, error) {
	return pprofweb.Report(p, args...)
}
