package report

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"regexp"
	"testing"
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
