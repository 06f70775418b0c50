module github.com/cfn-debug/go-note

go 1.19
