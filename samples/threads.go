package samples

import "fmt"

// EmptyStackName names the one frame the outputs give a sample without a
// Java frame (hprof's "<empty>" traces), which has an empty Stack: --root
// matches it against this name, as the outputs show it.
const EmptyStackName = "(no Java frames)"

// EmptyTimedStackName is EmptyStackName in the formats of timed samples
// (Profile.EmptyStackName).
const EmptyTimedStackName = "(no frames)"

// ThreadName is the name of a thread as the outputs show it: its own, or
// "thread <id>" when the file gives none.
func (th *Thread) ThreadName() string {
	if th.Name == "" {
		return fmt.Sprintf("thread %d", th.ID)
	}
	return th.Name
}
