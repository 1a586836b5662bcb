package mapping_test

import (
	"fmt"
	"strings"

	"github.com/atrace2/atrace2/mapping"
)

func ExampleRead() {
	const text = `# {"id":"com.android.tools.r8.mapping","version":"2.2"}
# pg_map_id: 7fe8b95
com.example.app.ui.FeedAdapter -> a.b.c:
# {"id":"sourceFile","fileName":"FeedAdapter.kt"}
    5:9:void com.example.app.util.Log.d(java.lang.String):40:44 -> a
    5:9:void bind(com.example.app.model.Item):27 -> a
    int getItemCount() -> b
com.example.app.model.Item -> a.b.d:
`
	// The trace's methods, read first: the map keeps only what they need.
	methods := []mapping.Method{
		{Class: "a.b.c", Name: "a", Signature: "(La/b/d;)V", Source: "r8-map-id-7fe8b95"},
		{Class: "a.b.c", Name: "toString", Signature: "()Ljava/lang/String;", Source: "r8-map-id-7fe8b95"},
		{Class: "java.lang.Thread", Name: "run", Signature: "()V", Source: "Thread.java"},
	}
	m, err := mapping.Read(strings.NewReader(text), "mapping.txt", methods)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := m.CheckID(mapping.TraceIDs(methods)); err != nil {
		fmt.Println(err)
		return
	}
	var counts mapping.Counts
	for _, meth := range methods {
		r := m.Resolve(meth)
		counts.Add(r.Status)
		fmt.Printf("%s %s %s (%s): %v\n", r.Name, r.Signature, r.Source, meth.Class+"."+meth.Name, r.Status)
	}
	fmt.Println(counts.Changed(), "changed")
	// Output:
	// com.example.app.ui.FeedAdapter.bind (Lcom/example/app/model/Item;)V FeedAdapter.kt (a.b.c.a): mapped
	// com.example.app.ui.FeedAdapter.toString ()Ljava/lang/String; FeedAdapter.kt (a.b.c.toString): class only
	// java.lang.Thread.run ()V Thread.java (java.lang.Thread.run): untouched
	// 2 changed
}
