package parser

import "testing"

func TestDecodeName(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{"plain", "plain"},
		{"ˊ", "ˊ"},                        // valid UTF-8 from an obfuscator
		{"a\xc0\x80b", "a\x00b"},          // MUTF-8 NUL
		{"\xed\xa0\xbd\xed\xb8\x80", "😀"}, // CESU-8 surrogate pair for U+1F600
		{"x\xed\xa0\xbdy", "x\ufffdy"},    // lone high surrogate
		{"\xff\xfe", "\ufffd\ufffd"},      // not UTF-8 at all
		{"\xc3", "\ufffd"},                // cut sequence
		{"ok\xc0\x80😀", "ok\x00😀"},        // 4-byte UTF-8 beside MUTF-8
	} {
		if got := decodeName([]byte(c.in)); got != c.want {
			t.Errorf("decodeName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestParseMethodLine(t *testing.T) {
	for _, c := range []struct {
		line string
		want Method
		ok   bool
	}{
		{"0x6287d960\tandroid/os/Debug\tstartMethodTracing\t(Ljava/lang/String;)V\tDebug.java\t-1",
			Method{ID: 0x6287d960, Class: "android.os.Debug", Name: "startMethodTracing", Signature: "(Ljava/lang/String;)V", Source: "Debug.java", Line: -1, HasLine: true}, true},
		{"0\tandroid.app.ActivityThread\tmain\t([Ljava/lang/String;)V\tActivityThread.java",
			Method{ID: 0, Class: "android.app.ActivityThread", Name: "main", Signature: "([Ljava/lang/String;)V", Source: "ActivityThread.java"}, true},
		{"0x4e8\tandroid.app.-$Lambda$aS31\trun\t()V\t(null)",
			Method{ID: 0x4e8, Class: "android.app.-$Lambda$aS31", Name: "run", Signature: "()V"}, true},
		{"4e8\ta.B\tc\t()V\t", Method{ID: 0x4e8, Class: "a.B", Name: "c", Signature: "()V"}, true},
		{"0x10\ta.B\tc\tB.java", Method{ID: 0x10, Class: "a.B", Name: "c", Source: "B.java"}, true},
		{"0x13\ta.B\tc\t(I)V", Method{ID: 0x10, Class: "a.B", Name: "c", Signature: "(I)V"}, true},
		{"0xzz\ta.B\tc", Method{}, false},
		{"0x10\ta.B", Method{}, false},
	} {
		got, ok := parseMethodLine([]byte(c.line))
		if ok != c.ok || got != c.want {
			t.Errorf("parseMethodLine(%q) = %+v, %v; want %+v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}
