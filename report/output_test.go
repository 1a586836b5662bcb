package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// writer is what every report can do.
type writer interface {
	WriteText(io.Writer, TextOptions) error
	WriteCSV(io.Writer) error
	WriteJSON(io.Writer) error
}

// reports builds every report of the golden traces once per test.
func reports(t *testing.T) map[string]writer {
	t.Helper()
	old, cur := load(t, "old.trace", oldTrace), load(t, "new.trace", newTrace)
	top, err := old.Top(TopOptions{})
	if err != nil {
		t.Fatal(err)
	}
	perThread, err := old.Top(TopOptions{PerThread: true, Sort: SortIncl, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	diff, err := Diff(old, cur, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]writer{
		"top":            top,
		"top-per-thread": perThread,
		"calls":          old.Calls(CallsOptions{Pattern: regexp.MustCompile(`App\.fib$|onPayment`)}),
		"diff":           diff,
	}
}

func TestGolden(t *testing.T) {
	for name, r := range reports(t) {
		for _, width := range []int{0, 100} {
			var b bytes.Buffer
			if err := r.WriteText(&b, TextOptions{Width: width}); err != nil {
				t.Fatal(err)
			}
			suffix := ".txt"
			if width == 0 {
				suffix = "-wide.txt"
			}
			golden(t, name+suffix, b.Bytes())
		}
		var csv, js bytes.Buffer
		if err := r.WriteCSV(&csv); err != nil {
			t.Fatal(err)
		}
		golden(t, name+".csv", csv.Bytes())
		if err := r.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		golden(t, name+".json", js.Bytes())
	}
}

// TestGoldenFit lays the text tables out for terminals of 80, 120 and 200
// columns (TextOptions.Fit): columns are left out, the least useful first,
// and every line fits but for names already at minNameWidth.
func TestGoldenFit(t *testing.T) {
	for name, r := range reports(t) {
		for _, width := range []int{80, 120, 200} {
			var b bytes.Buffer
			if err := r.WriteText(&b, TextOptions{Width: width, Fit: true}); err != nil {
				t.Fatal(err)
			}
			golden(t, fmt.Sprintf("%s-fit%d.txt", name, width), b.Bytes())
		}
	}
}

// TestFitLeavesColumnsOut checks the order in which a dual-clock top table
// leaves its columns out as the terminal narrows, and that what stays fits.
func TestFitLeavesColumnsOut(t *testing.T) {
	r, err := load(t, "old.trace", oldTrace).Top(TopOptions{})
	if err != nil {
		t.Fatal(err)
	}
	header := func(width int) (string, []string) {
		var b bytes.Buffer
		if err := r.WriteText(&b, TextOptions{Width: width, Fit: true}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "EXCL WALL") {
				return l, lines[i:]
			}
		}
		t.Fatalf("no table header in\n%s", b.String())
		return "", nil
	}
	for _, c := range []struct {
		width int
		want  string
	}{
		{200, "EXCL WALL      %  INCL WALL      %  EXCL CPU      %  INCL CPU      %  CALLS  RECURSIVE  EXCL WALL/CALL  METHOD"},
		{130, "EXCL WALL      %  INCL WALL      %  EXCL CPU  INCL CPU  CALLS  RECURSIVE  EXCL WALL/CALL  METHOD"},
		{110, "EXCL WALL      %  INCL WALL      %  EXCL CPU  INCL CPU  CALLS  RECURSIVE  METHOD"},
		{100, "EXCL WALL      %  INCL WALL      %  EXCL CPU  INCL CPU  CALLS  METHOD"},
		{90, "EXCL WALL      %  INCL WALL      %  EXCL CPU  CALLS  METHOD"},
		{80, "EXCL WALL      %  INCL WALL      %  CALLS  METHOD"},
		{40, "EXCL WALL      %  INCL WALL      %  METHOD"},
	} {
		got, lines := header(c.width)
		if got != c.want {
			t.Errorf("width %d: header\n%q, want\n%q", c.width, got, c.want)
		}
		for _, l := range lines {
			if n := utf8.RuneCountInString(l); n > c.width && c.width >= 80 && !strings.HasPrefix(l, "(") {
				t.Errorf("width %d: line of %d characters: %q", c.width, n, l)
			}
		}
	}
}

func TestShorten(t *testing.T) {
	const name = "com.example.ui.FeedAdapter.bind" // 31 characters
	const sig = "(Landroid/view/View;I)V"          // 23
	const park = "java.util.concurrent.locks.LockSupport.parkNanos"
	const submit = "androidx.recyclerview.widget.AsyncListDiffer.submitList" // 55
	for _, c := range []struct {
		name, sig string
		w         int
		abbrev    bool
		want      string
	}{
		{name, sig, 0, false, name + sig},
		{name, sig, 54, false, name + sig},
		{name, sig, 53, false, name + "(View,int)"},
		{name, sig, 41, false, name + "(View,int)"},
		{name, sig, 40, false, "…m.example.ui.FeedAdapter.bind(View,int)"},
		{name, sig, 40, true, "c.example.ui.FeedAdapter.bind(View,int)"},
		{name, sig, 24, false, "…eedAdapter.bind(View,…)"},
		{name, sig, 12, false, "…er.bind(V…)"},
		{submit, "(Ljava/util/List;)V", 56, false, "…dx.recyclerview.widget.AsyncListDiffer.submitList(List)"},
		{submit, "(Ljava/util/List;Ljava/lang/Runnable;)V", 56, false, "…erview.widget.AsyncListDiffer.submitList(List,Runnable)"},
		{name, "", 20, false, "…ui.FeedAdapter.bind"},
		{name, "", 24, true, "c.e.ui.FeedAdapter.bind"},
		{"a.b", "(I)V", 4, false, "…(…)"},
		{"a.ü", "([[ZJ)V", 9, false, "a.ü(boo…)"},
		{"a.b", "([[ZJ)V", 30, false, "a.b([[ZJ)V"},
		{"a.b", "(Ljava/lang/String;[[ZJ)V", 23, false, "a.b(String,boolean[][…)"},
		{"a.b", "(Lbroken)V", 8, false, "a.b(Lb…)"},
		{park, "", 48, true, park},
		{park, "", 45, true, "j.util.concurrent.locks.LockSupport.parkNanos"},
		{park, "", 33, true, "j.u.c.locks.LockSupport.parkNanos"},
		{park, "", 29, true, "j.u.c.l.LockSupport.parkNanos"},
		{park, "", 25, true, "….l.LockSupport.parkNanos"},
		{park, "", 25, false, "…ks.LockSupport.parkNanos"},
		{"com.example.App.fib", "(IJLjava/lang/String;)V", 27, true, "c.example.App.fib(int,lo…)"},
		{"a.B$c.d", "", 6, true, "…B$c.d"},
	} {
		if got := shorten(c.name, c.sig, c.w, c.abbrev); got != c.want {
			t.Errorf("shorten(%q, %q, %d, %v) = %q, want %q", c.name, c.sig, c.w, c.abbrev, got, c.want)
		}
		if c.w > 0 && utf8.RuneCountInString(shorten(c.name, c.sig, c.w, c.abbrev)) > c.w {
			t.Errorf("shorten(%q, %q, %d, %v) is longer than %d", c.name, c.sig, c.w, c.abbrev, c.w)
		}
	}
}

// TestJSONRoundTrip decodes each report's JSON into a fresh value of the
// same type and expects the same report back.
func TestJSONRoundTrip(t *testing.T) {
	for name, r := range reports(t) {
		var b bytes.Buffer
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		back := reflect.New(reflect.TypeOf(r).Elem())
		dec := json.NewDecoder(&b)
		dec.DisallowUnknownFields()
		if err := dec.Decode(back.Interface()); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(back.Interface(), r) {
			t.Errorf("%s: JSON round trip changed the report:\n got %+v\nwant %+v", name, back.Interface(), r)
		}
	}
}

func TestTruncate(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"com.example.ui.FeedAdapter.bind", 0, "com.example.ui.FeedAdapter.bind"},
		{"com.example.ui.FeedAdapter.bind", 31, "com.example.ui.FeedAdapter.bind"},
		{"com.example.ui.FeedAdapter.bind", 20, "…ui.FeedAdapter.bind"},
		{"a.Ünïcödé.método", 10, "…dé.método"},
		{"abc", 1, "…"},
	} {
		if got := truncate(c.in, c.w); got != c.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
}
