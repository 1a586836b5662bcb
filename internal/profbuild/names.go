package profbuild

import (
	"encoding/hex"
	"path"
	"strconv"
	"strings"

	"github.com/ianlancetaylor/demangle"

	"github.com/atrace2/atrace2/samples"
)

// Code says what a mapping holds, from its path (docs/formats.md §20.6).
type Code uint8

const (
	CodeOther     Code = iota // anything else, or no mapping
	CodeNative                // a shared library (.so) or executable
	CodeLibart                // ART's own library, libart.so: the runtime and its interpreters
	CodeArtInterp             // dex code ART interprets: .dex, .vdex, .jar, .apk
	CodeArtJIT                // code ART compiled just in time: its JIT cache
	CodeArtAOT                // code compiled ahead of time: .oat, .odex
	CodeKernel                // the kernel
)

// Classify says what the mapping at path holds. It follows Perfetto's own
// classification of ART mappings (trace processor's
// util/annotated_callsites.cc, ClassifyMap), with the JIT cache's other
// names ([anon_shmem:dalvik-jit-code-cache] on older releases, simpleperf's
// "[JIT app cache]") and the kernel's.
func Classify(p string) Code {
	switch {
	case p == "":
		return CodeOther
	case strings.HasPrefix(p, "/memfd:jit-cache"), strings.HasPrefix(p, "/memfd:jit-zygote-cache"),
		strings.Contains(p, "dalvik-jit-code-cache"), strings.Contains(p, "dalvik-zygote-jit-code-cache"),
		strings.HasPrefix(p, "[JIT "):
		return CodeArtJIT
	case p == "/kernel", strings.HasPrefix(p, "[kernel."), p == "[kernel]":
		return CodeKernel
	}
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		base := p[i:]
		if strings.HasPrefix(base, "/libart.so") || strings.HasPrefix(base, "/libartd.so") {
			return CodeLibart
		}
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		ext := p[i:]
		switch {
		case strings.HasPrefix(ext, ".so"):
			return CodeNative
		case strings.HasPrefix(ext, ".dex"), strings.HasPrefix(ext, ".vdex"), strings.HasPrefix(ext, ".jar"), strings.HasPrefix(ext, ".apk"):
			return CodeArtInterp
		case strings.HasPrefix(ext, ".oat"), strings.HasPrefix(ext, ".odex"):
			return CodeArtAOT
		}
	}
	if strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "/memfd:") && !strings.HasPrefix(p, "/dev/") {
		return CodeNative // an executable: /system/bin/app_process64
	}
	return CodeOther
}

// Java reports whether code of this kind runs Java methods.
func (c Code) Java() bool { return c == CodeArtInterp || c == CodeArtJIT || c == CodeArtAOT }

// MakeFrame names the frame of function fn at pc in mapping lib (build id
// id, raw bytes or hex), which the file says is Java code when java is
// true (simpleperf's execution types, Perfetto's frame kinds) or which
// Classify says is:
//
//   - a Java frame when the code is Java and fn is a method name
//     ("com.example.Foo.bar", or ART's "void com.example.Foo.bar(int)"),
//     ART's " [DEDUPED]" suffix dropped;
//   - a kernel frame in the kernel's mapping;
//   - a native frame in any other mapping, its name demangled (Symbol
//     keeps the mangled one), or "<library>+0x<pc>" without a name;
//   - an OtherFrame without a mapping.
func MakeFrame(fn, lib, id string, pc uint64, java bool) samples.Frame {
	code := Classify(lib)
	buildID := BuildID(id)
	if fn == "" {
		kind := samples.NativeFrame
		switch {
		case code == CodeKernel:
			kind = samples.KernelFrame
		case lib == "":
			return samples.Frame{Name: "[unknown]", Kind: samples.OtherFrame}
		case code.Java():
			kind = samples.OtherFrame // a Java frame without a method name
		}
		return samples.Frame{Name: path.Base(lib) + "+0x" + strconv.FormatUint(pc, 16), Kind: kind, Library: lib, BuildID: buildID}
	}
	if java || code.Java() {
		if name, ok := javaName(fn); ok {
			f := samples.ParseJavaName(name)
			f.Kind, f.Library, f.BuildID = samples.JavaFrame, lib, buildID
			return f
		}
	}
	f := samples.Frame{Name: fn, Kind: samples.NativeFrame, Library: lib, BuildID: buildID}
	switch {
	case code == CodeKernel:
		f.Kind = samples.KernelFrame
	case lib == "":
		f.Kind = samples.OtherFrame
	}
	if d := Demangle(fn); d != fn {
		f.Name, f.Symbol = d, fn
	}
	return f
}

// javaName returns fn without ART's " [DEDUPED]" suffix when it is a Java
// method name: dotted, no mangling, no space but the one after a return type.
func javaName(fn string) (string, bool) {
	fn = strings.TrimSuffix(fn, " [DEDUPED]")
	if strings.HasPrefix(fn, "_Z") || strings.HasPrefix(fn, "_R") {
		return "", false
	}
	name := fn
	if open := strings.IndexByte(name, '('); open > 0 {
		name = name[:open]
		if sp := strings.LastIndexByte(name, ' '); sp >= 0 {
			name = name[sp+1:]
		}
	}
	dot := strings.LastIndexByte(name, '.')
	if dot <= 0 || dot == len(name)-1 || strings.ContainsAny(name, " /:<>\t") {
		return "", false
	}
	return fn, true
}

// Demangle returns the C++ (Itanium) or Rust symbol sym demangled as
// c++filt and LLVM print it, or sym itself when it is not mangled.
func Demangle(sym string) string {
	if !strings.HasPrefix(sym, "_Z") && !strings.HasPrefix(sym, "_R") && !strings.HasPrefix(sym, "__Z") {
		return sym
	}
	return demangle.Filter(sym, demangle.LLVMStyle)
}

// BuildID is a build id in hex: raw bytes are encoded, text that is
// already hex is kept (some writers put the hex text in the field).
func BuildID(id string) string {
	if id == "" {
		return ""
	}
	if len(id)%2 == 0 && len(id) >= 16 && isHex(id) {
		return strings.ToLower(id)
	}
	return hex.EncodeToString([]byte(id))
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
