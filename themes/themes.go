// Package themes turns colour palettes into the styles the terminal UI draws
// with.
//
// A theme is data: a name, whether it is meant for a dark background, and a
// [Palette] of named colours. Every lipgloss style the UI uses ([Theme.Styles])
// and the glamour markdown style ([Theme.Glamour]) are derived from that one
// palette, so a theme cannot be half applied.
//
// Three themes are built in ("dark", "light" and "high-contrast", embedded
// JSON files). Users add or override themes with JSON files in [Dir]; see
// [Load] for the format. [Select] picks the theme for a session: an explicit
// name, else the terminal background decides, and NO_COLOR gives [NoColor].
package themes

import (
	"embed"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
)

// Names with a special meaning to [Resolve] and [Select].
const (
	// Auto picks "dark" or "light" from the terminal background ("" means the
	// same).
	Auto = "auto"
	// NoColorName is the name of the colourless theme returned by [NoColor].
	NoColorName = "no-color"
)

// ErrUnknownTheme is wrapped by the error [Resolve] returns for a name that is
// neither built in nor a user theme.
var ErrUnknownTheme = errors.New("unknown theme")

// Palette is a theme's named colours. In JSON every colour is a hex string,
// "#rgb" or "#rrggbb"; after loading they are normalised to lower-case
// "#rrggbb". An empty string means "the terminal's default" and is only used
// by [NoColor].
type Palette struct {
	// Background is the terminal background the theme is designed for. The UI
	// does not paint it; it is the text colour on accent-coloured badges.
	Background string `json:"background"`
	// Foreground is body text.
	Foreground string `json:"foreground"`
	// Muted is secondary text: tool output, reasons, hints.
	Muted string `json:"muted"`
	// Subtle is the least prominent text: separators, placeholders.
	Subtle string `json:"subtle"`
	// Accent is the main highlight: labels, prompts, headings, keys.
	Accent string `json:"accent"`
	// Accent2 is a second highlight: tool names, sub-headings, inline code.
	Accent2 string `json:"accent2"`

	Success string `json:"success"`
	Warning string `json:"warning"`
	Error   string `json:"error"`
	Info    string `json:"info"`

	// The left rules of user, assistant and tool blocks in the transcript.
	UserBorder      string `json:"user_border"`
	AssistantBorder string `json:"assistant_border"`
	ToolBorder      string `json:"tool_border"`
	// Selection is the background of a selected or focused item.
	Selection string `json:"selection"`

	DiffAdd     string `json:"diff_add"`
	DiffRemove  string `json:"diff_remove"`
	DiffContext string `json:"diff_context"`

	// CodeBackground is the background of inline code spans.
	CodeBackground string `json:"code_background"`
	// Syntax highlighting of fenced code blocks.
	CodeKeyword  string `json:"code_keyword"`
	CodeString   string `json:"code_string"`
	CodeComment  string `json:"code_comment"`
	CodeFunction string `json:"code_function"`
	CodeNumber   string `json:"code_number"`
	CodeType     string `json:"code_type"`
}

// Theme is a named palette.
type Theme struct {
	// Name is how the theme is chosen (--theme, config, /theme).
	Name string
	// Dark reports whether the theme is designed for a dark background.
	Dark bool
	// Palette holds the colours.
	Palette Palette
}

// IsNoColor reports whether t draws no colours at all (see [NoColor]).
func (t Theme) IsNoColor() bool { return t.Palette == Palette{} }

// NoColor returns the theme for NO_COLOR: its styles use bold, italic,
// underline and reverse video but no colour, and its glamour style does not
// highlight code.
func NoColor() Theme { return Theme{Name: NoColorName, Dark: true} }

//go:embed builtin/*.json
var builtinFS embed.FS

// builtinOrder names the embedded themes in display order.
var builtinOrder = []string{"dark", "light", "high-contrast"}

// builtins returns the embedded themes in display order, parsed (and
// their chroma styles registered) on first use, before anything can
// render with them: a piped run never needs them.
var builtins = sync.OnceValue(mustLoadBuiltins)

func mustLoadBuiltins() []Theme {
	var out []Theme
	for _, name := range builtinOrder {
		file := path.Join("builtin", name+".json")
		data, err := builtinFS.ReadFile(file)
		if err != nil {
			panic(fmt.Sprintf("themes: built-in %s: %v", name, err))
		}
		t, err := parse(file, data, nil)
		if err != nil {
			panic(fmt.Sprintf("themes: built-in %s: %v", name, err))
		}
		t.Glamour() // registers its chroma style before anything renders
		out = append(out, t)
	}
	return out
}

// Builtin returns the built-in themes: "dark", "light" and "high-contrast".
// The slice is a copy; callers may modify it.
func Builtin() []Theme { return slices.Clone(builtins()) }

// Get returns the built-in theme with the given name.
func Get(name string) (Theme, bool) {
	for _, t := range builtins() {
		if t.Name == name {
			return t, true
		}
	}
	if name == NoColorName {
		return NoColor(), true
	}
	return Theme{}, false
}

// Resolve finds the theme called name. "" and "auto" mean "dark" when the
// terminal has a dark background and "light" otherwise. User themes (from
// [Load]) take precedence over built-in themes of the same name; among user
// themes the last one wins. An unknown name gives an error wrapping
// [ErrUnknownTheme] that lists the valid names.
func Resolve(name string, hasDarkBackground bool, user []Theme) (Theme, error) {
	name = strings.TrimSpace(name)
	if name == "" || name == Auto {
		name = "light"
		if hasDarkBackground {
			name = "dark"
		}
	}
	for i := len(user) - 1; i >= 0; i-- {
		if user[i].Name == name {
			return user[i], nil
		}
	}
	if t, ok := Get(name); ok {
		return t, nil
	}
	return Theme{}, fmt.Errorf("%w %q (valid: %s)", ErrUnknownTheme, name, strings.Join(Names(user), ", "))
}

// Select is [Resolve] with NO_COLOR respected: when no theme was asked for
// (name is "" or "auto") and the environment has a non-empty NO_COLOR, it
// returns [NoColor]. An explicit name wins over NO_COLOR, as no-color.org
// asks of command-line options and configuration.
func Select(name string, getenv func(string) string, hasDarkBackground bool, user []Theme) (Theme, error) {
	if n := strings.TrimSpace(name); (n == "" || n == Auto) && getenv != nil && getenv("NO_COLOR") != "" {
		return NoColor(), nil
	}
	return Resolve(name, hasDarkBackground, user)
}

// Names returns every name [Resolve] accepts, sorted: "auto", the built-in
// names, "no-color" and the user theme names.
func Names(user []Theme) []string {
	names := []string{Auto, NoColorName}
	for _, t := range builtins() {
		names = append(names, t.Name)
	}
	for _, t := range user {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}
