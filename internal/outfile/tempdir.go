package outfile

import "os"

// TempDir makes a private temporary directory (mode 0700) that a signal
// caught by HandleSignals removes together with the outputs being written;
// remove removes it when the caller is done with it.
func TempDir(pattern string) (dir string, remove func(), err error) {
	pending.mu.Lock()
	defer pending.mu.Unlock()
	dir, err = os.MkdirTemp("", pattern)
	if err != nil {
		return "", nil, err
	}
	pending.files[dir] = nil
	return dir, func() {
		pending.done(dir)
		os.RemoveAll(dir)
	}, nil
}
