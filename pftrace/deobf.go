package pftrace

import (
	"slices"
	"strings"

	"github.com/atrace2/atrace2/internal/pbread"
	"github.com/atrace2/atrace2/internal/units"
	"github.com/atrace2/atrace2/samples"
)

// deobfuscate renames the profile's Java frames with the trace's own
// DeobfuscationMapping packets (what `trace_processor bundle` or an app's
// tooling appends to a trace), as trace_processor's DeobfuscationTracker
// does (docs/formats.md §20.7):
//
//   - A mapping applies to the frames of its package_name. A frame's
//     package comes from its mapping's path (/data/app/[~~…/]<package>-…/,
//     and the known system apps trace_processor lists); frames of the JIT
//     cache (/memfd:…) take every package's mappings; other frames take the
//     package of the process's uid in the trace's packages list.
//   - A method "a" of class "x.y" maps the frame named "x.y.a" to the
//     member's deobfuscated name, made fully qualified with the class's
//     deobfuscated name when it has no dot.
//   - A name that maps to several different names (overloads merged by
//     R8, without line numbers in the frames to tell them apart) is left
//     obfuscated and counted in a note; trace_processor shows "A | B".
//
// A renamed frame keeps the trace's name in Obfuscated, as --mapping does.
func (rd *reader) deobfuscate(p *samples.Profile) {
	if len(rd.deobf) == 0 {
		return
	}
	guess := ""
	if len(p.Processes) > 0 {
		if uid, ok := rd.procUID[p.Processes[p.Process].PID]; ok {
			guess = rd.packages[uid%100000]
		}
	}
	pkgs := make([]string, len(p.Frames))
	for i := range p.Frames {
		f := &p.Frames[i]
		if f.Kind != samples.JavaFrame {
			continue
		}
		switch pkg, ok := packageFromLocation(f.Library); {
		case ok:
			pkgs[i] = pkg
		case strings.HasPrefix(f.Library, "/memfd:"):
			pkgs[i] = "memfd"
		default:
			pkgs[i] = guess
		}
	}
	renamed := make([]string, len(p.Frames))
	ambiguous := make([]bool, len(p.Frames))
	for _, raw := range rd.deobf {
		pkg, methods := readDeobfuscation(pbread.Msg{B: raw})
		if pkg == "" {
			continue
		}
		for i := range p.Frames {
			f := &p.Frames[i]
			if f.Kind != samples.JavaFrame || (pkgs[i] != pkg && pkgs[i] != "memfd") {
				continue
			}
			names := methods[f.Name]
			switch {
			case len(names) == 1:
				renamed[i], ambiguous[i] = names[0], false
			case len(names) > 1:
				renamed[i], ambiguous[i] = "", true
			}
		}
	}
	for i, name := range renamed {
		if ambiguous[i] {
			rd.st.deobfAmbiguous++
			continue
		}
		if name == "" {
			continue
		}
		f := &p.Frames[i]
		nf := samples.ParseJavaName(name)
		f.Obfuscated = f.Name
		f.Name, f.Class, f.Method = nf.Name, nf.Class, nf.Method
		rd.st.deobfRenamed++
	}
	if rd.st.deobfRenamed > 0 {
		p.Notes = append(p.Notes, units.Plural(rd.st.deobfRenamed, "frame was", "frames were")+" renamed by the trace's deobfuscation mappings")
	}
	if rd.st.deobfAmbiguous > 0 {
		p.Notes = append(p.Notes, units.Plural(rd.st.deobfAmbiguous, "frame keeps its", "frames keep their")+" obfuscated name: the trace's mappings give several names for it")
	}
}

// readDeobfuscation reads a DeobfuscationMapping: package_name 1,
// obfuscated_classes 3 {obfuscated_name 1, deobfuscated_name 2,
// obfuscated_methods 4 {obfuscated_name 1, deobfuscated_name 2}}. It
// returns, per obfuscated "class.method", the distinct deobfuscated names.
func readDeobfuscation(m pbread.Msg) (string, map[string][]string) {
	pkg := ""
	methods := map[string][]string{}
	for m.Next() {
		switch {
		case m.Num == 1:
			pkg = string(m.Val)
		case m.Num == 3 && m.Type == pbread.Bytes:
			c := m.Sub()
			var obf, deobf string
			var members [][2]string
			for c.Next() {
				switch {
				case c.Num == 1:
					obf = string(c.Val)
				case c.Num == 2:
					deobf = string(c.Val)
				case c.Num == 4 && c.Type == pbread.Bytes:
					mm := c.Sub()
					var mo, md string
					for mm.Next() {
						switch mm.Num {
						case 1:
							mo = string(mm.Val)
						case 2:
							md = string(mm.Val)
						}
					}
					members = append(members, [2]string{mo, md})
				}
			}
			for _, mem := range members {
				full := mem[1]
				if !strings.Contains(full, ".") {
					full = deobf + "." + full
				}
				key := obf + "." + mem[0]
				if !slices.Contains(methods[key], full) {
					methods[key] = append(methods[key], full)
				}
			}
		}
	}
	return pkg, methods
}

// systemApps are the system apps whose package trace_processor knows from
// their path (util/profiler_util.cc, PackageFromLocation).
var systemApps = []struct{ prefix, pkg string }{
	{"/system_ext/priv-app/SystemUIGoogle/SystemUIGoogle.apk", "com.android.systemui"},
	{"/product/priv-app/Phonesky/Phonesky.apk", "com.android.vending"},
	{"/product/app/Maps/Maps.apk", "com.google.android.apps.maps"},
	{"/system_ext/priv-app/NexusLauncherRelease/NexusLauncherRelease.apk", "com.google.android.apps.nexuslauncher"},
	{"/product/app/Photos/Photos.apk", "com.google.android.apps.photos"},
	{"/product/priv-app/WellbeingPrebuilt/WellbeingPrebuilt.apk", "com.google.android.apps.wellbeing"},
	{"/product/app/PrebuiltGmail/PrebuiltGmail.apk", "com.google.android.gm"},
	{"/product/priv-app/Velvet/Velvet.apk", "com.google.android.googlequicksearchbox"},
	{"/product/app/LatinIMEGooglePrebuilt/LatinIMEGooglePrebuilt.apk", "com.google.android.inputmethod.latin"},
	{"/product/app/PrebuiltBugle/PrebuiltBugle.apk", "com.google.android.apps.messaging"},
}

// packageFromLocation is trace_processor's PackageFromLocation: the
// package of an app's file from its path, /data/app/<package>-<random>/…
// or (Android 11 on) /data/app/~~<random>/<package>-<random>/…, also after
// "dex extracted in memory from"; a few system apps by name.
func packageFromLocation(loc string) (string, bool) {
	for _, a := range systemApps {
		if strings.HasPrefix(loc, a.prefix) {
			return a.pkg, true
		}
	}
	switch {
	case strings.Contains(loc, "DevicePersonalizationPrebuilt"), strings.Contains(loc, "MatchMaker"):
		return "com.google.android.as", true
	case strings.Contains(loc, "DeviceIntelligenceNetworkPrebuilt"):
		return "com.google.android.as.oss", true
	case strings.Contains(loc, "SettingsIntelligenceGooglePrebuilt"):
		return "com.google.android.settings.intelligence", true
	case strings.Contains(loc, "PrebuiltGmsCore"), strings.Contains(loc, "com.google.android.gms"):
		return "com.google.android.gms", true
	}
	const dataApp = "/data/app/"
	if strings.HasPrefix(loc, dataApp) {
		return packageFromApp(loc[len(dataApp):])
	}
	const inMem = "dex extracted in memory from /data/app/"
	if i := strings.Index(loc, inMem); i >= 0 {
		return packageFromApp(loc[i+len(inMem):])
	}
	return "", false
}

func packageFromApp(rest string) (string, bool) {
	if strings.HasPrefix(rest, "~") {
		_, after, ok := strings.Cut(rest, "/")
		if !ok {
			return "", false
		}
		rest = after
	}
	dir, _, ok := strings.Cut(rest, "/")
	if !ok {
		return "", false
	}
	pkg, _, ok := strings.Cut(dir, "-")
	if !ok {
		return "", false
	}
	return pkg, true
}
