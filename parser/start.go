package parser

import "bytes"

// CheckStart checks the first bytes of an input (64 or more, unless the
// input is shorter) the way Open reads them: key text, SLOW, a V2 method
// packet, or gzip. It returns nil when they can start a trace, and else the
// error Open would return. A caller that copies an input it cannot read
// twice checks it first, so that /dev/zero or a large file of something
// else is refused before it fills the disk.
func CheckStart(head []byte) error {
	switch {
	case len(head) == 0:
		return formatErr(0, emptyFile)
	case head[0] == '*', head[0] == v2MethodInfo, bytes.HasPrefix(head, []byte("SLOW")),
		len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		return nil
	}
	return identify(head)
}
