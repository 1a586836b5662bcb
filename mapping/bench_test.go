package mapping

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// obfName is R8-like: a, b, …, z, ba, bb, … (base 26, no leading a).
func obfName(i int) string {
	var b []byte
	for {
		b = append([]byte{byte('a' + i%26)}, b...)
		if i /= 26; i == 0 {
			return string(b)
		}
	}
}

// genClass is the i-th class of a generated map: original and obfuscated
// names.
func genClass(i int) (orig, obf string) {
	return fmt.Sprintf("com.example.feature%d.ui.Screen%dAdapter", i/500, i), "o" + obfName(i/500) + "." + obfName(i%500)
}

// writeGenMap writes a deterministic R8-style map of at least size bytes:
// classes with sourceFile metadata, fields, inline chains, overloads,
// residual signatures and synthesized lambda classes. It returns the
// number of classes.
func writeGenMap(w io.Writer, size int64) (int, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	cw := &countWriter{w: bw}
	fmt.Fprintf(cw, "# compiler: R8\n# compiler_version: 8.5.35\n# min_api: 24\n")
	fmt.Fprintf(cw, "# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.2\"}\n")
	fmt.Fprintf(cw, "# pg_map_id: 5b46fdc0a1d2c3b4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c\n")
	n := 0
	for ; cw.n < size; n++ {
		orig, obf := genClass(n)
		next, _ := genClass(n + 1)
		fmt.Fprintf(cw, "%s -> %s:\n# {\"id\":\"sourceFile\",\"fileName\":\"Screen%dAdapter.kt\"}\n", orig, obf, n)
		fmt.Fprintf(cw, "    java.util.List items -> a\n    int count -> b\n    %s next -> c\n", next)
		fmt.Fprintf(cw, "    1:4:void <init>(java.util.List):12:15 -> <init>\n")
		for j := range 4 {
			o := obfName(j)
			fmt.Fprintf(cw, "    %d:%d:void com.example.util.Log.d(java.lang.String):40:44 -> %s\n", 10*j+1, 10*j+5, o)
			fmt.Fprintf(cw, "    %d:%d:void bind%d(%s,int):27 -> %s\n", 10*j+1, 10*j+5, j, next, o)
			fmt.Fprintf(cw, "    %d:%d:void bind%d(%s,int):28:31 -> %s\n", 10*j+6, 10*j+9, j, next, o)
			fmt.Fprintf(cw, "    %d:%d:void bind%d(java.lang.String):50:51 -> %s\n", 10*j+6, 10*j+7, j, o)
		}
		fmt.Fprintf(cw, "    int getItemCount() -> e\n    # {\"id\":\"com.android.tools.r8.residualsignature\",\"signature\":\"()I\"}\n")
		fmt.Fprintf(cw, "    java.lang.Object get(%s) -> f\n    # {\"id\":\"com.android.tools.r8.residualsignature\",\"signature\":\"(Ljava/lang/Object;)Ljava/lang/Object;\"}\n", next)
		if n%10 == 0 {
			fmt.Fprintf(cw, "%s$$ExternalSyntheticLambda0 -> %s$a:\n# {\"id\":\"sourceFile\",\"fileName\":\"R8$$SyntheticClass\"}\n# {\"id\":\"com.android.tools.r8.synthesized\"}\n", orig, obf)
			fmt.Fprintf(cw, "    void run() -> run\n      # {\"id\":\"com.android.tools.r8.synthesized\"}\n")
		}
	}
	if cw.err != nil {
		return 0, cw.err
	}
	return n, bw.Flush()
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

// genMethods are the trace's methods for a generated map of n classes:
// three methods each of classes spread over the whole map.
func genMethods(n, classes int) []Method {
	var ms []Method
	for k := range classes {
		i := k * (n - 1) / classes
		_, obf := genClass(i)
		_, next := genClass(i + 1)
		desc := "L" + slashes(next) + ";"
		ms = append(ms,
			Method{obf, "a", "(" + desc + "I)V", "r8-map-id-5b46fdc"},
			Method{obf, "f", "(Ljava/lang/Object;)Ljava/lang/Object;", "r8-map-id-5b46fdc"},
			Method{obf, "e", "()I", "r8-map-id-5b46fdc"},
		)
	}
	return ms
}

func slashes(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '.' {
			b[i] = '/'
		}
	}
	return string(b)
}

// genMapFile writes a generated map of at least size bytes under dir.
func genMapFile(tb testing.TB, dir string, size int64) (string, int) {
	tb.Helper()
	path := filepath.Join(dir, fmt.Sprintf("mapping-%d.txt", size))
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	n, err := writeGenMap(f, size)
	if err2 := f.Close(); err == nil {
		err = err2
	}
	if err != nil {
		tb.Fatal(err)
	}
	return path, n
}

// BenchmarkRead reads a generated R8-style map (100 and 200 MB) for a trace
// of 3,000 methods of 1,000 classes. B/op stays flat when the map doubles.
func BenchmarkRead(b *testing.B) {
	for _, mb := range []int64{100, 200} {
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			path, n := genMapFile(b, b.TempDir(), mb<<20)
			fi, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			methods := genMethods(n, 1000)
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			for b.Loop() {
				m, err := Open(path, methods)
				if err != nil {
					b.Fatal(err)
				}
				if r := m.Resolve(methods[0]); r.Status != Mapped {
					b.Fatalf("%+v", r)
				}
			}
		})
	}
}

// TestMemoryFlat reads generated maps of 2 and 4 MB for the same trace:
// the bytes allocated must not grow with the map.
func TestMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("generates maps")
	}
	dir := t.TempDir()
	alloc := func(size int64) uint64 {
		path, _ := genMapFile(t, dir, size)
		methods := genMethods(200, 100) // the first 200 classes, in both maps
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m, err := Open(path, methods)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if r := m.Resolve(methods[0]); r.Status != Mapped || len(m.Warnings) > 0 {
			t.Fatalf("%+v %q", r, m.Warnings)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := alloc(2<<20), alloc(4<<20)
	t.Logf("allocated %d bytes for a 2 MB map, %d for 4 MB", small, large)
	if large > small+small/4 {
		t.Errorf("allocations grow with the map: %d bytes for 2 MB, %d for 4 MB", small, large)
	}
}
