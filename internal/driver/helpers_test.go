package driver

import (
	"testing"

	"golang.org/x/tools/txtar"
)

func section(t *testing.T, ar *txtar.Archive, name string) []byte {
	t.Helper()
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data
		}
	}
	t.Fatalf("no -- %s -- section", name)
	return nil
}
