module github.com/atrace2/atrace2

go 1.26.8

require (
	github.com/alecthomas/kong v1.17.0
	github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe
	github.com/ianlancetaylor/demangle v0.0.0-20250417193237-f615e6bd150b
	github.com/klauspost/compress v1.18.1
	golang.org/x/term v0.47.0
	golang.org/x/tools v0.52.0
	google.golang.org/protobuf v1.36.12
)

require golang.org/x/sys v0.49.0 // indirect
