package convert

// GeneralOnly returns opt set to send every record through the policy's
// general path (pass.record), for tests that compare it with the fast one.
func GeneralOnly(opt Options) Options {
	opt.generalOnly = true
	return opt
}

// TwoReads returns opt set to read the trace twice whatever the outputs
// can take, for tests that compare one read with two.
func TwoReads(opt Options) Options {
	opt.twoReads = true
	return opt
}

// Serial returns opt set to decode, apply the policy and run the
// exporters on the caller's goroutine when serial is true, and to run the
// exporters on a goroutine of their own (with more than one CPU) when it
// is false, whatever the outputs, for tests that compare the two.
func Serial(opt Options, serial bool) Options {
	opt.serial, opt.pipelined = serial, !serial
	return opt
}

// ReferenceOnly reports whether the atrace2_reference build tag turned
// every fast path off: then every run reads the trace twice, and tests of
// what one read does skip.
const ReferenceOnly = referenceOnly

// TableFrame is the frame the pass makes of a method of h's table without
// a mapping.
var TableFrame = tableFrame
