package perfetto

import "github.com/atrace2/atrace2/internal/reference"

// Reference returns opt set to write every event with the general
// encoders, none with the fast ones, so tests can check that the two write
// the same bytes.
func Reference(opt Options) Options {
	opt.reference = true
	return opt
}

// ReferenceOnly reports whether the atrace2_reference build tag turned
// every fast path off.
const ReferenceOnly = reference.Only

// Written returns the number of bytes written so far.
func (e *Exporter) Written() int64 { return e.written }

// EventCount returns the number of slice begins and ends written.
func (e *Exporter) EventCount() int64 { return e.events }
