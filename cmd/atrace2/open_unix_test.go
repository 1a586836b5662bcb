//go:build unix

package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOpenBrowser: --open runs $BROWSER with the viewer's URL, which the
// printed line names too, and the file is served at the URL in it.
func TestOpenBrowser(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "url")
	browser := filepath.Join(dir, "browser")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\nprintf %s \"$1\" > "+got+".tmp && mv "+got+".tmp "+got+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", browser)
	done, lines := openRun(t, "speedscope", "--open", sample)
	printed := viewerURL(t, done, lines)
	var opened []byte
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var err error
		if opened, err = os.ReadFile(got); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if string(opened) != printed || !strings.HasPrefix(printed, "https://www.speedscope.app/#profileURL=http%3A%2F%2F127.0.0.1%3A") {
		t.Fatalf("$BROWSER got %q, the printed URL is %q", opened, printed)
	}
	resp, err := (&http.Client{Timeout: time.Minute}).Get(fileOf(t, printed))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if code := exitCode(t, done); code != 0 || resp.StatusCode != http.StatusOK {
		t.Errorf("GET: %s; exit %d", resp.Status, code)
	}
	for range lines {
	}
}
