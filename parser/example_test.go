package parser_test

import (
	"bytes"
	"fmt"
	"io"

	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
)

// Read the records of a trace in file order, with their raw times.
func ExampleFile_NewReader() {
	tr, _ := tracegen.ParseText(`version 3
clock dual
vm art
thread 1 main
method 0x4 com.example.App onCreate (Landroid/os/Bundle;)V App.java
1 enter 0x4 0 10
1 exit 0x4 7 25
`)
	data := tr.Regular()
	f, err := parser.NewFile("app.trace", bytes.NewReader(data), int64(len(data)), parser.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	fmt.Println(f.Header.Variant, f.Header.RecordVersion, f.Header.Clock)
	r := f.NewReader()
	for {
		var rec parser.Record
		err := r.ReadRecord(&rec)
		if err == io.EOF {
			break
		}
		m, _ := f.Header.Method(rec.Method)
		th, _ := f.Header.Thread(rec.Thread)
		fmt.Printf("%s %s %s.%s cpu=%dµs wall=%dµs\n", th.Name, rec.Action, m.Class, m.Name, rec.CPU, rec.Wall)
	}
	// Output:
	// regular 3 dual
	// main enter com.example.App.onCreate cpu=0µs wall=10µs
	// main exit com.example.App.onCreate cpu=7µs wall=25µs
}
