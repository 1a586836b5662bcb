package mapping

// Open: a mapping file, gzip-compressed or not, or a directory searched for
// the mapping.txt whose pg_map_id the trace names (docs/formats.md §19.6).

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const (
	// maxWalk caps the entries a directory search visits.
	maxWalk = 100_000
	// headerLines caps the lines read for a candidate's pg_map_id.
	headerLines = 64
)

// Open reads the mapping at path: a file, gzip-compressed or not, or a
// directory searched for mapping.txt (and mapping.txt.gz) files, of which
// the one whose pg_map_id is among the trace's ids (TraceIDs) is taken; a
// directory with one mapping is that one. The file is read a second time
// only for rule 5's moved methods whose owner's class line came first.
func Open(path string, methods []Method) (*Map, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		if path, err = search(path, TraceIDs(methods)); err != nil {
			return nil, err
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	again := func() (io.Reader, func(), error) {
		g, err := os.Open(path)
		if err != nil {
			return nil, nil, err
		}
		return g, func() { g.Close() }, nil
	}
	return read(f, path, methods, again)
}

// found is one mapping file of a directory search.
type found struct {
	path, id string
}

// search finds the mapping under dir for the trace's ids.
func search(dir string, ids []string) (string, error) {
	var all []found
	visited := 0
	errStop := errors.New("stop")
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // an unreadable corner of the tree is skipped
		}
		if visited++; visited > maxWalk {
			return errStop
		}
		name := d.Name()
		if d.IsDir() {
			if p != dir && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "intermediates") {
				return filepath.SkipDir
			}
			return nil
		}
		if name == "mapping.txt" || name == "mapping.txt.gz" {
			all = append(all, found{p, headerID(p)})
		}
		return nil
	})
	if err != nil && err != errStop {
		return "", err
	}
	if len(all) == 0 {
		more := ""
		if err == errStop {
			more = fmt.Sprintf(" in the first %d entries", maxWalk)
		}
		return "", fmt.Errorf("%s: no mapping.txt found%s", dir, more)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].path < all[j].path })
	if len(ids) > 0 {
		for _, f := range all {
			for _, id := range ids {
				if sameID(f.id, id) {
					return f.path, nil
				}
			}
		}
		return "", fmt.Errorf("%s: no mapping.txt with the trace's map id (r8-map-id-%s); found %s (give the file itself to use it anyway)",
			dir, strings.Join(ids, ", r8-map-id-"), list(all))
	}
	if len(all) == 1 {
		return all[0].path, nil
	}
	return "", fmt.Errorf("%s: %d mapping.txt files and the trace names no map id; give one: %s", dir, len(all), list(all))
}

// list names the files found, with their ids.
func list(all []found) string {
	parts := make([]string, 0, min(len(all), 10))
	for i, f := range all {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("and %d more", len(all)-10))
			break
		}
		id := "no pg_map_id"
		if f.id != "" {
			id = "id " + f.id
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", f.path, id))
	}
	return strings.Join(parts, ", ")
}

// headerID reads a mapping's header comment lines for its pg_map_id; ""
// when it has none or cannot be read.
func headerID(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return ""
		}
		defer zr.Close()
		r = zr
	}
	sc := bufio.NewScanner(r)
	for n := 0; n < headerLines && sc.Scan(); n++ {
		t := bytes.TrimSpace(bytes.TrimPrefix(sc.Bytes(), bom))
		if len(t) == 0 {
			continue
		}
		if t[0] != '#' {
			break
		}
		if id, ok := bytes.CutPrefix(bytes.TrimLeft(t[1:], " \t"), []byte("pg_map_id:")); ok {
			return string(bytes.TrimSpace(id))
		}
	}
	return ""
}
