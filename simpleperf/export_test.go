package simpleperf

import (
	"io"

	"github.com/atrace2/atrace2/samples"
)

// ReadReference is Read on the reference path: every call chain decoded
// frame by frame, no cache of stacks.
func ReadReference(r io.Reader, opt Options) (*samples.Profile, error) { return read(r, opt, true) }

const ReferenceOnly = referenceOnly
