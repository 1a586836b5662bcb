// Package outfile writes a command's outputs so that a failed or
// interrupted run leaves none behind: each file is written under a
// temporary name beside it and renamed into place only when complete
// (Create, Commit, Abort), several outputs are kept all or none
// (CommitAll), and Ctrl-C, SIGTERM, SIGHUP and SIGQUIT remove the
// temporary files, and empty standard output redirected to a file, before
// the process dies (HandleSignals); a broken pipe on standard output is a
// write error that removes them too, and then SIGPIPE ends the process.
// A command may take Ctrl-C itself for a while (Interrupts: atrace2 record
// stops recording on it) and add clean-ups that run before a signal ends
// the process (OnSignal).
//
// It also knows the cases a rename would get wrong: a path that names a
// device or a FIFO is written in place, a symbolic link is followed to the
// file it names (but not another user's in a sticky shared folder, the
// rule of Linux's fs.protected_symlinks), a new file gets 0666 less the
// umask and a replaced one keeps its mode and owner, an output that would replace an input is refused
// (Inputs.Check), binary data is refused on a terminal, and standard
// output redirected to an empty file can be taken back and written again
// (File.Rewinder, which the Perfetto exporter uses when it must read the
// trace twice).
//
// Fast path: an output created with Options.WriteBehind, with more than one
// CPU, is buffered by a writer that hands full chunks to a goroutine of its
// own (asyncWriter), so that formatting the next chunk overlaps the
// kernel's copy of the last. The reference path, every other output's and
// every output's under the build tag atrace2_reference, is a plain
// bufio.Writer. TestAsyncWriter and TestAsyncMatchesBufio tie the two: the
// same writes give the same bytes.
package outfile
