package perfetto

// SetFastPath turns the fast event encoders on or off, so tests can check
// that they write the bytes of the general ones.
func SetFastPath(on bool) { fastPath = on }
