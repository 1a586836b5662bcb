package tracegen

import (
	"reflect"
	"regexp"
	"testing"
)

// TestParseText parses the documented example and checks every field.
func TestParseText(t *testing.T) {
	src := `# a dual-clock ART trace
version 3
clock dual
vm art
start 1000000
option pid=1234
option data-file-overflow=true
recordsize 14
thread 1 main               # the rest of the line is the name
thread 11 "AsyncTask #1"
thread 12 Signal  Catcher
method 0x4 com.example.App onCreate (Landroid/os/Bundle;)V App.java 42
method 0 "a b" "" () "(null)"

1 enter 0x4 0 0
1 exit  0x4 5 10
12 unwind 0 7 12
12 bad 0x8 7 12
12 3 8 1 2
`
	got, err := ParseText(src)
	if err != nil {
		t.Fatal(err)
	}
	want := &Trace{
		Version: 3, Clock: "dual", VM: "art", Start: 1000000, RecordSize: 14,
		Options: []Option{{"pid", "1234"}, {"data-file-overflow", "true"}},
		Threads: []Thread{{1, "main"}, {11, "AsyncTask #1"}, {12, "Signal  Catcher"}},
		Methods: []Method{
			{0x4, "com.example.App", "onCreate", "(Landroid/os/Bundle;)V", "App.java", 42},
			{0, "a b", "", "()", "(null)", 0},
		},
		Records: []Record{
			{Thread: 1, Method: 4, Action: Enter, CPU: 0, Wall: 0},
			{Thread: 1, Method: 4, Action: Exit, CPU: 5, Wall: 10},
			{Thread: 12, Method: 0, Action: Unwind, CPU: 7, Wall: 12},
			{Thread: 12, Method: 8, Action: BadAction, CPU: 7, Wall: 12},
			{Thread: 12, Method: 8, Action: BadAction, CPU: 1, Wall: 2},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseText =\n%+v\nwant\n%+v", got, want)
	}
}

// TestParseTextOneClock checks that a single time goes to the trace's one
// clock, even when the clock directive comes after the records.
func TestParseTextOneClock(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want Record
	}{
		{"version 2\n1 enter 0x4 9\nclock wall\n", Record{Thread: 1, Method: 4, Wall: 9}},
		{"version 2\nclock thread-cpu\n1 enter 0x4 9\n", Record{Thread: 1, Method: 4, CPU: 9}},
		{"version 1\n1 enter 0x4 9\n", Record{Thread: 1, Method: 4, CPU: 9}},
		{"version 2\nclock wall\n1 enter 0x4 9 10\n", Record{Thread: 1, Method: 4, CPU: 9, Wall: 10}},
	} {
		tr, err := ParseText(tt.src)
		if err != nil {
			t.Fatalf("ParseText(%q): %v", tt.src, err)
		}
		if len(tr.Records) != 1 || tr.Records[0] != tt.want {
			t.Errorf("ParseText(%q) records = %+v, want [%+v]", tt.src, tr.Records, tt.want)
		}
	}
}

// TestTextRoundTrip checks that ParseText(t.Text()) == t, including names
// that need quoting and times a one-clock layout would not hold.
func TestTextRoundTrip(t *testing.T) {
	traces := []*Trace{
		{Version: 0},
		{
			Version: 3, Clock: "dual", VM: "art", Start: 1 << 40, RecordSize: 18, DataOffset: 40,
			BareKey: true,
			Options: []Option{{"pid", "1"}, {"weird", "a=b #c"}, {"", ""}, {" lead", "trail "}},
			Threads: []Thread{
				{1, "main"}, {2, "AsyncTask #1"}, {3, ""}, {4, " x "}, {5, "tab\there"},
				{6, "\"quoted\""}, {7, "bad\xc0\x80utf"}, {70000, "ˊˋ"},
			},
			Methods: []Method{
				{0, "a.B", "<init>", "()V", "", -1},
				{4, "a b", "#x", "\"", "Src.java", 0},
				{8, "\xed\xa0\x80\xed\xb0\x80", "ˎ", "(I)V", "(null)", 123},
			},
			Records: []Record{
				{Thread: 1, Method: 0, Action: Enter, CPU: 0, Wall: 1},
				{Thread: 70000, Method: 4, Action: 7, CPU: 4294967295, Wall: 0},
			},
		},
		{
			Version: 2, Clock: "wall",
			Records: []Record{
				{Thread: 1, Method: 4, Wall: 5},
				{Thread: 1, Method: 4, CPU: 3},
				{Thread: 1, Method: 4, CPU: 3, Wall: 5},
				{Thread: 1, Method: 4},
			},
		},
		{
			Version: 1, Clock: "thread-cpu", VM: "dalvik",
			Records: []Record{
				{Thread: 300, Method: 0x6287d961, CPU: 5},
				{Thread: 1, Method: 4, Wall: 3},
				{Thread: 1, Method: 4, CPU: 3, Wall: 5},
			},
		},
	}
	for i, tr := range traces {
		// The writers must not panic on anything the text form accepts.
		tr.Regular()
		tr.Streaming(StreamOptions{SummaryThreads: true})
		text := tr.Text()
		got, err := ParseText(text)
		if err != nil {
			t.Errorf("trace %d: ParseText(Text()): %v\n%s", i, err, text)
			continue
		}
		if !reflect.DeepEqual(normalize(got), normalize(tr)) {
			t.Errorf("trace %d: round trip =\n%+v\nwant\n%+v\ntext:\n%s", i, got, tr, text)
		}
	}
}

// normalize makes empty and nil slices compare equal.
func normalize(t *Trace) Trace {
	c := *t
	if len(c.Options) == 0 {
		c.Options = nil
	}
	if len(c.Threads) == 0 {
		c.Threads = nil
	}
	if len(c.Methods) == 0 {
		c.Methods = nil
	}
	if len(c.Records) == 0 {
		c.Records = nil
	}
	return c
}

// TestTextExample pins the exact text form of a small trace.
func TestTextExample(t *testing.T) {
	tr := &Trace{
		Version: 3, Clock: "dual", VM: "art", Start: 1000,
		Options: []Option{{"pid", "1234"}},
		Threads: []Thread{{1, "main"}, {2, "AsyncTask #1"}},
		Methods: []Method{{0, "com.example.App", "onCreate", "(Landroid/os/Bundle;)V", "", 0}},
		Records: []Record{{Thread: 1, Method: 0, Action: Enter, CPU: 0, Wall: 5}},
	}
	want := `version 3
clock dual
vm art
start 1000
option pid=1234
thread 1 main
thread 2 "AsyncTask #1"
method 0x0 com.example.App onCreate (Landroid/os/Bundle;)V ""
1 enter 0x0 0 5
`
	if got := tr.Text(); got != want {
		t.Errorf("Text() =\n%s\nwant\n%s", got, want)
	}
}

func TestParseTextErrors(t *testing.T) {
	for _, tt := range []struct{ src, err string }{
		{"", `^parsing text: missing version directive$`},
		{"version x", `^parsing text line 1: version: bad number "x"$`},
		{"version 3\nversion", `^parsing text line 2: version: got 0 arguments, want 1 to 1$`},
		{"version 3\nfoo 1", `^parsing text line 2: unknown directive "foo"$`},
		{"version 3\nthread 1", `thread: want an id and a name`},
		{"version 3\nthread x y", `thread: bad id "x"`},
		{"version 3\nmethod 0x4 a b c", `method: got 4 arguments`},
		{"version 3\nmethod 0x4 a b c d x", `method: bad line number "x"`},
		{"version 3\nmethod 0xg a b c d", `method: bad id "g"`},
		{"version 3\n1 enter 0x4", `record: got 3 fields`},
		{"version 3\n1 jump 0x4 0", `unknown action "jump"`},
		{"version 3\n1 enter 0x4 -1", `record time "-1": want a decimal u32`},
		{"version 3\n1 enter 0x4 4294967296", `record time "4294967296"`},
		{"version 3\n99999999999 enter 0x4 1", `record thread: bad id`},
		{"version 3\nthread 1 \"main", `line 2: bad quoted string at column 10`},
		{"version 3\nthread 1 \"a\"b", `line 2: missing space after quoted string at column 13`},
		{"version 3\noption", `option: missing value`},
		{"version 3\nstart -1", `start: bad number "-1"`},
		{"version 3\nbarekey 1", `barekey: got 1 arguments`},
		{"version 3\nrecordsize x", `recordsize: bad number "x"`},
		{"version 3\nrecordsize -1", `recordsize: bad number "-1" \(want 0 to 65535\)`},
		{"version 3\ndataoffset 65536", `dataoffset: bad number "65536"`},
		{"version 3\ndataoffset", `dataoffset: got 0 arguments`},
	} {
		_, err := ParseText(tt.src)
		if err == nil || !regexp.MustCompile(tt.err).MatchString(err.Error()) {
			t.Errorf("ParseText(%q) error = %v, want match %q", tt.src, err, tt.err)
		}
	}
}

// TestTextToBinary checks that a text case produces the same bytes as the
// equivalent struct, so txtar cases and Go tests describe the same files.
func TestTextToBinary(t *testing.T) {
	tr, err := ParseText(`
version 2
clock wall
vm dalvik
thread 1 main
method 0x6287d960 android.os.Debug startMethodTracing (Ljava/lang/String;)V Debug.java -1
1 exit 0x6287d960 7
`)
	if err != nil {
		t.Fatal(err)
	}
	want := "*version\n2\ndata-file-overflow=false\nclock=wall\nelapsed-time-usec=7\n" +
		"num-method-calls=1\nclock-call-overhead-nsec=2000\nvm=dalvik\n*threads\n1\tmain\n*methods\n" +
		"0x6287d960\tandroid/os/Debug\tstartMethodTracing\t(Ljava/lang/String;)V\tDebug.java\t-1\n*end\n" +
		string(h(`534c4f57 0200 2000 0000000000000000 0000 `+pad14+` 0100 61d98762 07000000`))
	if got := string(tr.Regular()); got != want {
		t.Errorf("Regular() =\n%q\nwant\n%q", got, want)
	}
}

// FuzzTextRoundTrip checks that any text ParseText accepts survives
// Text and ParseText unchanged.
func FuzzTextRoundTrip(f *testing.F) {
	f.Add("version 3\nclock dual\nthread 1 main\nmethod 0 a.B c ()V B.java 3\n1 enter 0 1 2\n")
	f.Add("version 2\nclock wall\n1 exit 0x4 9\noption a=b c\nthread 2 \"x #1\"\n")
	f.Add("version 1\nvm dalvik\nbarekey\nrecordsize 9\ndataoffset 40\nstart 5\n300 bad 0x6287d961 5\n")
	f.Fuzz(func(t *testing.T, src string) {
		tr, err := ParseText(src)
		if err != nil {
			return
		}
		// The writers must not panic on anything the text form accepts.
		tr.Regular()
		tr.Streaming(StreamOptions{SummaryThreads: true})
		text := tr.Text()
		got, err := ParseText(text)
		if err != nil {
			t.Fatalf("ParseText(Text()): %v\ntext:\n%s", err, text)
		}
		if !reflect.DeepEqual(normalize(got), normalize(tr)) {
			t.Fatalf("round trip =\n%+v\nwant\n%+v\ntext:\n%s", got, tr, text)
		}
	})
}
