module github.com/atrace2/atrace2

go 1.26.8
