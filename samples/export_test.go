package samples

// MergeFrames is Profile.mergeFrames, for tests.
func (p *Profile) MergeFrames() { p.mergeFrames() }
