package themes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/tackle-dev/tackle/tools/suggest"
)

// Dir returns the directory that holds user themes for the given environment
// lookup (os.Getenv in production): $XDG_CONFIG_HOME/tackle/themes, or
// ~/.config/tackle/themes when XDG_CONFIG_HOME is unset. It returns "" when
// neither XDG_CONFIG_HOME nor HOME is set.
func Dir(getenv func(string) string) string {
	if dir := getenv("XDG_CONFIG_HOME"); dir != "" {
		return filepath.Join(dir, "tackle", "themes")
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".config", "tackle", "themes")
	}
	return ""
}

// Error is a problem with one theme file. Its message names the file and,
// where there is one, the field:
//
//	themes/ocean.json: palette.accent: "#12345" is not a colour (want #rgb or #rrggbb)
//	themes/ocean.json:4:15: invalid JSON: invalid character '}' looking for beginning of object key string
type Error struct {
	File string
	// Line and Col locate JSON syntax errors (1-based); zero otherwise.
	Line, Col int
	// Field is the dotted path of the offending field ("palette.accent"), or
	// "" when the problem is with the file as a whole.
	Field   string
	Problem string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Problem)
	return b.String()
}

// Load reads the user themes in dir: every *.json file, in name order. A
// missing dir is not an error (there are simply no user themes).
//
// A theme file looks like this:
//
//	{
//	  "name": "ocean",
//	  "extends": "dark",
//	  "palette": {"accent": "#5fafd7", "accent2": "#87d7af"}
//	}
//
// "name" defaults to the file name without ".json". "dark" (true for a theme
// meant for a dark background) and every colour of the palette (see
// [PaletteFields]; "#rgb" or "#rrggbb") are required, unless "extends" names
// a built-in theme, whose values fill in what the file leaves out. Unknown
// fields are errors. A user theme with a built-in's name replaces it. Load returns the themes that loaded and, when
// some files did not, an error joining one [*Error] per problem, each naming
// the file and the field.
func Load(dir string) ([]Theme, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("themes: %w", err)
	}
	var (
		themes []Theme
		errs   []error
		seen   = map[string]string{} // theme name → file
	)
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		file := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(file)
		if err != nil {
			errs = append(errs, fmt.Errorf("themes: %w", err))
			continue
		}
		t, err := parse(file, data, Get)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if prev, dup := seen[t.Name]; dup {
			errs = append(errs, &Error{File: file, Field: "name",
				Problem: fmt.Sprintf("theme %q is already defined by %s", t.Name, prev)})
			continue
		}
		seen[t.Name] = file
		t.Glamour() // registers its chroma style before anything renders
		themes = append(themes, t)
	}
	return themes, errors.Join(errs...)
}

// paletteNames are the JSON names of the palette colours, in declaration
// order: name i is the name of field i of Palette.
var paletteNames = sync.OnceValue(func() []string {
	typ := reflect.TypeFor[Palette]()
	names := make([]string, typ.NumField())
	for i := range typ.NumField() {
		names[i] = typ.Field(i).Tag.Get("json")
	}
	return names
})

// PaletteFields returns the JSON names of the palette colours, in
// declaration order.
func PaletteFields() []string {
	return slices.Clone(paletteNames())
}

var topFields = []string{"name", "dark", "extends", "palette"}

// parse decodes and validates one theme file. file is used in error messages;
// base looks up the theme that "extends" names (nil: extending is not allowed).
func parse(file string, data []byte, base func(string) (Theme, bool)) (Theme, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return Theme{}, jsonError(file, data, "", err)
	}
	if top == nil {
		return Theme{}, &Error{File: file, Problem: "want a JSON object, got null"}
	}
	f := &themeFile{file: file, top: top}
	f.checkFields()
	t := Theme{Name: f.name()}
	parent := f.parent(base)
	t.Dark = f.dark(parent)
	t.Palette = f.palette(parent)
	if len(f.errs) > 0 {
		return Theme{}, errors.Join(f.errs...)
	}
	return t, nil
}

// themeFile is one theme file being validated: its top-level fields and the
// problems found so far, in the order they are reported.
type themeFile struct {
	file string
	top  map[string]json.RawMessage
	errs []error
}

// fail records a problem with field ("" for the file as a whole).
func (f *themeFile) fail(field, format string, args ...any) {
	f.errs = append(f.errs, &Error{File: f.file, Field: field, Problem: fmt.Sprintf(format, args...)})
}

// extends reports whether the file has an "extends" field, valid or not.
func (f *themeFile) extends() bool {
	_, ok := f.top["extends"]
	return ok
}

// checkFields reports the top-level fields that are not theme fields.
func (f *themeFile) checkFields() {
	for _, k := range sortedKeys(f.top) {
		if !slices.Contains(topFields, k) {
			f.fail(k, "unknown field%s", didYouMean(k, topFields))
		}
	}
}

// name is the theme's "name", else the file name without ".json".
func (f *themeFile) name() string {
	name := strings.TrimSuffix(filepath.Base(f.file), ".json")
	if raw, ok := f.top["name"]; ok {
		if err := json.Unmarshal(raw, &name); err != nil {
			f.fail("name", "want a string, got %s", raw)
		}
	}
	if !validName(name) {
		f.fail("name", "%q is not a theme name (want letters, digits, '-', '_' or '.'; not \"auto\")", name)
	}
	return name
}

// parent is the built-in theme that "extends" names, or nil when there is
// none or it names no built-in theme.
func (f *themeFile) parent(base func(string) (Theme, bool)) *Theme {
	raw, ok := f.top["extends"]
	if !ok {
		return nil
	}
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		f.fail("extends", "want a string, got %s", raw)
		return nil
	}
	b, ok := lookup(base, name)
	if !ok || b.IsNoColor() {
		f.fail("extends", "%q is not a built-in theme (want one of %s)", name, builtinNames())
		return nil
	}
	return &b
}

// dark is the theme's "dark", else its parent's; it is required when the
// file extends nothing.
func (f *themeFile) dark(parent *Theme) bool {
	raw, ok := f.top["dark"]
	switch {
	case ok:
		var dark bool
		if err := json.Unmarshal(raw, &dark); err != nil {
			f.fail("dark", "want true or false, got %s", raw)
		}
		return dark
	case parent != nil:
		return parent.Dark
	case !f.extends():
		f.fail("dark", "missing (true for a theme meant for dark backgrounds)")
	}
	return false
}

// palette is the parent's palette (if any) with the file's colours set over
// it; without a parent every colour is required.
func (f *themeFile) palette(parent *Theme) Palette {
	var p Palette
	if parent != nil {
		p = parent.Palette
	}
	colours, ok := f.colours()
	missing := f.setColours(&p, colours, parent == nil)
	if ok {
		f.reportMissing(missing)
	}
	return p
}

// colours is the "palette" object, and whether the file has a valid one.
func (f *themeFile) colours() (map[string]json.RawMessage, bool) {
	raw, ok := f.top["palette"]
	if !ok {
		if !f.extends() {
			f.fail("palette", "missing")
		}
		return nil, false
	}
	var colours map[string]json.RawMessage
	if err := json.Unmarshal(raw, &colours); err != nil || colours == nil {
		f.fail("palette", "want an object of colours, got %s", abbreviate(raw))
		return nil, false
	}
	return colours, true
}

// setColours sets the valid colours of colours in p and reports the others.
// With required it returns the names of the palette colours that colours
// lacks.
func (f *themeFile) setColours(p *Palette, colours map[string]json.RawMessage, required bool) (missing []string) {
	known := paletteNames()
	for _, k := range sortedKeys(colours) {
		if !slices.Contains(known, k) {
			f.fail("palette."+k, "unknown colour%s", didYouMean(k, known))
		}
	}
	pv := reflect.ValueOf(p).Elem()
	for i, name := range known {
		raw, ok := colours[name]
		if !ok {
			if required {
				missing = append(missing, name)
			}
			continue
		}
		if c, ok := f.colour(name, raw); ok {
			pv.Field(i).SetString(c)
		}
	}
	return missing
}

// colour decodes and normalises the colour named name.
func (f *themeFile) colour(name string, raw json.RawMessage) (string, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		f.fail("palette."+name, "want a colour string like \"#89b4fa\", got %s", abbreviate(raw))
		return "", false
	}
	c, ok := normaliseColour(s)
	if !ok {
		f.fail("palette."+name, "%q is not a colour (want #rgb or #rrggbb)", s)
	}
	return c, ok
}

// reportMissing reports missing palette colours: each by name when there
// are a few, else all in one problem.
func (f *themeFile) reportMissing(missing []string) {
	const hint = "every colour is required unless \"extends\" names a built-in theme"
	if len(missing) > 4 {
		f.fail("palette", "missing %d colours: %s (%s)", len(missing), strings.Join(missing, ", "), hint)
		return
	}
	for _, m := range missing {
		f.fail("palette."+m, "missing (%s)", hint)
	}
}

// jsonError turns an encoding/json error into an [*Error] with a line and
// column where the decoder reports an offset.
func jsonError(file string, data []byte, field string, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line, col := position(data, syn.Offset)
		return &Error{File: file, Line: line, Col: col, Field: field, Problem: "invalid JSON: " + syn.Error()}
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		if typ.Field == "" {
			return &Error{File: file, Field: field, Problem: "want a JSON object, got " + typ.Value}
		}
		line, col := position(data, typ.Offset)
		return &Error{File: file, Line: line, Col: col, Field: typ.Field, Problem: "want " + typ.Type.String() + ", got " + typ.Value}
	}
	return &Error{File: file, Field: field, Problem: "invalid JSON: " + err.Error()}
}

// position returns the 1-based line and column (in bytes) of the byte that
// encoding/json complained about: its offsets point just after that byte.
func position(data []byte, offset int64) (line, col int) {
	i := min(max(int(offset)-1, 0), len(data)) // index of the bad byte
	line = 1 + bytes.Count(data[:i], []byte("\n"))
	col = i - bytes.LastIndexByte(data[:i], '\n')
	return line, col
}

// normaliseColour accepts "#rgb" and "#rrggbb" in any case and returns
// lower-case "#rrggbb".
func normaliseColour(s string) (string, bool) {
	if len(s) != 4 && len(s) != 7 || s[0] != '#' {
		return "", false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return "", false
		}
	}
	s = strings.ToLower(s)
	if len(s) == 4 {
		s = string([]byte{'#', s[1], s[1], s[2], s[2], s[3], s[3]})
	}
	return s, true
}

func validName(s string) bool {
	if s == "" || s == Auto {
		return false
	}
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

func lookup(f func(string) (Theme, bool), name string) (Theme, bool) {
	if f == nil {
		return Theme{}, false
	}
	return f(name)
}

func builtinNames() string { return strings.Join(builtinOrder, ", ") }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func abbreviate(raw json.RawMessage) string {
	const max = 40
	s := strings.Join(strings.Fields(string(raw)), " ")
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// didYouMean returns ` (did you mean "x"?)` for the closest known name within a
// small edit distance, or the known names.
func didYouMean(name string, known []string) string {
	best := suggest.Closest(name, known)
	if best == "" {
		return " (want one of " + strings.Join(known, ", ") + ")"
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}
