package openview

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// Browsers are the commands tried, in order, to open a URL: $BROWSER
// first (a command line, split at spaces, the URL appended), then the
// system's opener. The list is pprof's (internal/driver/commands.go,
// browsersForOS), so that --open and pprof --http open the same browser.
func Browsers() []string {
	return browsersFor(runtime.GOOS, os.Getenv("BROWSER"), os.Getenv("DISPLAY") != "")
}

func browsersFor(goos, user string, display bool) []string {
	var cmds []string
	if user != "" {
		cmds = append(cmds, user)
	}
	switch goos {
	case "darwin":
		cmds = append(cmds, "/usr/bin/open")
	case "windows":
		// The trailing space makes an empty argument, start's window
		// title; without it start takes a URL with a space for the title.
		cmds = append(cmds, "cmd /c start ")
	default:
		cmds = append(cmds, "chrome", "google-chrome", "chromium", "firefox", "sensible-browser")
		if display {
			cmds = append(cmds, "xdg-open")
		}
	}
	return cmds
}

// ErrNoBrowser is returned by OpenBrowser when no command could start.
var ErrNoBrowser = errors.New("no browser could be started (set BROWSER to the command that opens a URL)")

// OpenBrowser starts the first of Browsers that starts, with url as its
// last argument, and does not wait for it to finish.
func OpenBrowser(url string) error {
	for _, b := range Browsers() {
		args := strings.Split(b, " ")
		if args[0] == "" {
			continue
		}
		cmd := exec.Command(args[0], append(args[1:], url)...)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err == nil {
			go cmd.Wait() // reaps it whenever it ends
			return nil
		}
	}
	return ErrNoBrowser
}
