// Command libfloor is the start-up floor of the libraries tackle is built
// on: it links the markdown renderer (glamour, and with it chroma and
// goldmark), the UI (bubbletea, bubbles, lipgloss), the command line
// (kong), the model client (openai-go) and the schema generator, runs
// their package initialisation, prints a version and exits. What tackle
// takes beyond it at start-up is tackle's own; what it takes beyond the
// floor client (tools/bench/floor) is what linking those libraries costs.
// BenchmarkSideBySide measures the three side by side.
package main

import (
	"fmt"

	_ "charm.land/bubbles/v2/textarea"
	_ "charm.land/bubbletea/v2"
	_ "charm.land/glamour/v2"
	_ "charm.land/lipgloss/v2"
	_ "github.com/alecthomas/kong"
	_ "github.com/google/jsonschema-go/jsonschema"
	_ "github.com/openai/openai-go/v3"
)

func main() { fmt.Println("libfloor 1") }
