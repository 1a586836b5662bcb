package convert

// GeneralOnly returns opt set to send every record through the policy's
// general path (pass.record), for tests that compare it with the fast one.
func GeneralOnly(opt Options) Options {
	opt.generalOnly = true
	return opt
}
