module github.com/tackle-dev/tackle

go 1.26.8

require (
	github.com/alecthomas/kong v1.17.0 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/openai/openai-go/v3 v3.95.0 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
)
