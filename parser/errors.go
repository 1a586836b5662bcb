package parser

import (
	"errors"
	"fmt"
)

// ErrNotMethodTrace is wrapped by errors for inputs that are not Android
// method traces at all; callers may branch on it (errors.Is).
var ErrNotMethodTrace = errors.New("not an Android method trace")

// FormatError reports malformed data at a byte offset of the (decompressed)
// input, in the style of debug/macho.FormatError.
type FormatError struct {
	Off int64  // byte offset where the problem was found
	Msg string // what was expected or found, lower case
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("offset %d (%#x): %s", e.Off, e.Off, e.Msg)
}

func formatErr(off int64, format string, args ...any) error {
	return &FormatError{Off: off, Msg: fmt.Sprintf(format, args...)}
}

// notTraceError says what a file is instead, and which tool opens it.
type notTraceError struct{ what string }

func (e *notTraceError) Error() string { return "not an Android method trace: " + e.what }
func (e *notTraceError) Unwrap() error { return ErrNotMethodTrace }
