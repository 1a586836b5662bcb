package main

import (
	"bufio"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
)

// commandLine matches a command in the "Commands:" list of atrace2 --help.
var commandLine = regexp.MustCompile(`^  ([a-z][a-z0-9-]*)  `)

// commandsDocIntro opens docs/commands.md: what the --help texts leave out.
const commandsDocIntro = `# Command reference

This file is generated from the command line's own help by
` + "`go test ./cmd/atrace2 -run TestCommandsDoc -update`" + `
(cmd/atrace2/commands_doc_test.go), and the test fails when it differs
from ` + "`atrace2 --help`" + ` and ` + "`atrace2 <command> --help`" + `: edit the
Help texts in cmd/atrace2, not this file. The README gives examples;
[guide.md](guide.md) explains what the outputs contain, and
[formats.md](formats.md) and [outputs.md](outputs.md) specify the files.

Conventions shared by every command:

- TRACE may be ` + "`-`" + ` for standard input, or a path that names a pipe or
  device (bash's ` + "`<(adb exec-out cat /sdcard/app.trace)`" + `, ` + "`/dev/stdin`" + `).
  Input that cannot be read twice, and gzip input, is first copied
  (decompressed) to a temporary file in ` + "`$TMPDIR`" + `, never kept in memory. A
  copy larger than ` + "`ATRACE2_SPOOL_LIMIT`" + ` (a size such as 500M or 100G;
  default 64G) stops the run with an error, as a full disk does, and leaves
  nothing behind. A pipe is read once, so ` + "`diff`" + ` takes it for OLD or NEW,
  not both.
- A streaming trace from Android 6–7 keeps its key in a separate ` + "`.sec`" + `
  file: give it after the trace (it is read up to its ` + "`*end`" + ` line, at most
  64 MiB). A pre-1.0 ` + "`NAME.key`" + `/` + "`NAME.data`" + ` pair
  is given as either file or the base name.
- Commands that write a file take ` + "`-o FILE`" + `; without it they write to
  standard output, and refuse binary output to a terminal. Outputs are
  written to a temporary file and renamed when complete; an output that
  names a device or pipe (` + "`-o /dev/null`" + `) is written directly; an output
  that names the trace itself, or another output of the same ` + "`convert`" + `, is
  refused before converting. A new output gets 0666 less the umask; one
  that replaces a file keeps its permissions (and, where allowed, its
  owner). A symbolic link is followed to the file it names, except a link
  in a sticky folder anyone can write (` + "`/tmp`" + `) that belongs to neither you
  nor the folder's owner, which is refused (Linux's fs.protected_symlinks).
- Exit status: 0 on success (also when the trace needed repairs, unless
  ` + "`--strict`" + `), 1 for bad input or an output that could not be written
  (standard output included), 80 for a usage error (the error on stderr,
  nothing on standard output). Ctrl-C, SIGTERM, SIGHUP
  and SIGQUIT remove the output being written, empty standard output
  redirected to a file, and end the process by the signal; when standard
  output's reader goes away (` + "`| head`" + `), the other outputs are removed
  and the process ends by SIGPIPE.
- The repair summary (one line on stderr) and warnings are silenced by
  ` + "`-q`" + `. On a terminal, a conversion that takes more than a second shows a
  progress bar on stderr.
- atrace2 sets GOGC=400 and a soft heap limit of 100 MiB, raised to twice
  the live heap when that grows larger, unless the ` + "`GOGC`" + ` and
  ` + "`GOMEMLIMIT`" + ` environment variables say otherwise.
`

// TestCommandsDoc renders atrace2 --help and every command's --help into
// docs/commands.md and compares the file with them (-update rewrites it),
// so the command reference cannot drift from the command line.
func TestCommandsDoc(t *testing.T) {
	t.Setenv("COLUMNS", "80") // kong wraps help to the terminal's width
	help := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, nil, append(args, "--help")...)
		if code != 0 || stderr != "" {
			t.Fatalf("atrace2 %s --help: exit %d, stderr %q", strings.Join(args, " "), code, stderr)
		}
		return stdout
	}
	top := help()
	var commands []string
	inList := false
	sc := bufio.NewScanner(strings.NewReader(top))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "Commands:":
			inList = true
		case inList && line != "" && !strings.HasPrefix(line, " "):
			inList = false
		case inList:
			if m := commandLine.FindStringSubmatch(line); m != nil {
				commands = append(commands, m[1])
			}
		}
	}
	if len(commands) < 10 {
		t.Fatalf("found %d commands in atrace2 --help (%q): has its layout changed?", len(commands), commands)
	}

	var b strings.Builder
	b.WriteString(commandsDocIntro)
	b.WriteString("\nCommands: ")
	for i, c := range commands {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "[%s](#atrace2-%s)", c, c)
	}
	b.WriteString(".\n\n## atrace2\n\n```\n" + top + "```\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "\n## atrace2 %s\n\n```\n%s```\n", c, help(c))
	}
	testutil.Golden(t, "docs/commands.md", []byte(b.String()))
}
