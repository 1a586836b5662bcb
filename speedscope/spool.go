package speedscope

import (
	"errors"
	"fmt"
	"os"
)

// block is where one spilled buffer lies in the spool file.
type block struct {
	off int64
	n   int32
}

// spool is the temporary file that holds spilled event blocks. It is
// created on the first spill, so a trace whose events fit in memory never
// touches the disk.
type spool struct {
	dir  string
	f    *os.File
	size int64
	name string // set until the file has been removed
}

// write appends p to the spool and returns where it went.
func (s *spool) write(p []byte) (block, error) {
	if s.f == nil {
		if err := s.create(); err != nil {
			return block{}, err
		}
	}
	if _, err := s.f.Write(p); err != nil {
		return block{}, fmt.Errorf("speedscope: writing spool file: %w", err)
	}
	b := block{off: s.size, n: int32(len(p))}
	s.size += int64(len(p))
	return b, nil
}

// create makes the spool file. On Unix it is unlinked at once, so it
// disappears even if the process dies before Close.
func (s *spool) create() error {
	f, err := os.CreateTemp(s.dir, "atrace2-speedscope-*.spool")
	if err != nil {
		return fmt.Errorf("speedscope: creating spool file: %w", err)
	}
	s.f, s.name = f, f.Name()
	if os.Remove(s.name) == nil {
		s.name = ""
	}
	return nil
}

// read reads block b into buf, growing it as needed.
func (s *spool) read(b block, buf []byte) ([]byte, error) {
	if s.f == nil || b.n < 0 || b.off+int64(b.n) > s.size {
		return buf, errors.New("speedscope: invariant violation: block outside the spool file")
	}
	if cap(buf) < int(b.n) {
		buf = make([]byte, b.n)
	}
	buf = buf[:b.n]
	if _, err := s.f.ReadAt(buf, b.off); err != nil {
		return buf, fmt.Errorf("speedscope: reading spool file at %d: %w", b.off, err)
	}
	return buf, nil
}

// close closes and removes the file.
func (s *spool) close() error {
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	if s.name != "" {
		if rerr := os.Remove(s.name); err == nil {
			err = rerr
		}
		s.name = ""
	}
	if err != nil {
		return fmt.Errorf("speedscope: removing spool file: %w", err)
	}
	return nil
}
