//go:build !unix

package outfile

import "os"

// appending reports whether f was opened to append: not known here, so a
// file standard output writes at an offset before its end is left alone.
func appending(*os.File) bool { return false }
