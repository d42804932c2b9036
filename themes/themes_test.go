package themes

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"charm.land/glamour/v2"
	"github.com/alecthomas/chroma/v2"
	chromastyles "github.com/alecthomas/chroma/v2/styles"
)

func TestBuiltin(t *testing.T) {
	got := Builtin()
	var names []string
	for _, th := range got {
		names = append(names, th.Name)
	}
	if !slices.Equal(names, []string{"dark", "light", "high-contrast"}) {
		t.Fatalf("built-in themes %v", names)
	}
	for _, th := range got {
		t.Run(th.Name, func(t *testing.T) {
			pv := reflect.ValueOf(th.Palette)
			for i := range pv.NumField() {
				if c := pv.Field(i).String(); !strings.HasPrefix(c, "#") || len(c) != 7 {
					t.Errorf("palette.%s = %q", PaletteFields()[i], c)
				}
			}
			if th.IsNoColor() {
				t.Error("a built-in theme is colourless")
			}
			st := th.Styles()
			if out := st.Accent.Render("x"); !strings.Contains(out, "38;2;") {
				t.Errorf("Accent style draws no colour: %q", out)
			}
			// The glamour style renders, with code highlighted in the
			// palette's keyword colour.
			r, err := glamour.NewTermRenderer(glamour.WithStyles(th.Glamour()), glamour.WithChromaFormatter("terminal16m"))
			if err != nil {
				t.Fatal(err)
			}
			out, err := r.Render("# Title\n\n```go\nfunc main() {}\n```\n")
			if err != nil {
				t.Fatal(err)
			}
			if kw := sgr(th.Palette.CodeKeyword); !strings.Contains(out, kw) {
				t.Errorf("code keyword not in %s (%q): %q", th.Palette.CodeKeyword, kw, out)
			}
		})
	}
	// Builtin returns a copy.
	got[0].Name = "changed"
	if Builtin()[0].Name != "dark" {
		t.Error("Builtin() shares its slice")
	}
}

func TestBuiltinFilesAreStrict(t *testing.T) {
	// The embedded files pass the same validation as user files and are
	// named after their themes.
	entries, err := builtinFS.ReadDir("builtin")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, _ := builtinFS.ReadFile("builtin/" + e.Name())
		th, err := parse(e.Name(), data, nil)
		if err != nil {
			t.Errorf("%s: %v", e.Name(), err)
		}
		if th.Name+".json" != e.Name() {
			t.Errorf("%s holds theme %q", e.Name(), th.Name)
		}
	}
}

// sgr is the 24-bit foreground sequence for a hex colour.
func sgr(hex string) string {
	c, _ := normaliseColour(hex)
	var v [3]int
	for i := range v {
		for _, d := range c[1+2*i : 3+2*i] {
			v[i] = v[i]*16 + strings.IndexRune("0123456789abcdef", d)
		}
	}
	return "38;2;" + strconv.Itoa(v[0]) + ";" + strconv.Itoa(v[1]) + ";" + strconv.Itoa(v[2]) + "m"
}

func TestGlamourFollowsPalette(t *testing.T) {
	dark, _ := Get("dark")
	g := dark.Glamour()
	if *g.H1.BackgroundColor != dark.Palette.Accent || *g.Link.Color != dark.Palette.Info || *g.Document.Color != dark.Palette.Foreground {
		t.Error("glamour style does not use the palette")
	}
	style := chromastyles.Get(g.CodeBlock.Theme)
	if style.Name != g.CodeBlock.Theme {
		t.Fatalf("chroma style %q is not registered", g.CodeBlock.Theme)
	}
	if got := style.Get(chroma.Keyword).Colour.String(); got != dark.Palette.CodeKeyword {
		t.Errorf("chroma keyword colour %s, want %s", got, dark.Palette.CodeKeyword)
	}

	// Themes with different code colours get different chroma styles
	// (glamour's own "charm" style is registered once, first come first
	// served).
	other := dark
	other.Palette.CodeKeyword = "#ff0000"
	if og := other.Glamour(); og.CodeBlock.Theme == g.CodeBlock.Theme {
		t.Error("two palettes share a chroma style")
	} else if c := chromastyles.Get(og.CodeBlock.Theme).Get(chroma.Keyword).Colour.String(); c != "#ff0000" {
		t.Errorf("second palette's keyword colour %s", c)
	}
	if again := dark.Glamour(); again.CodeBlock.Theme != g.CodeBlock.Theme {
		t.Error("the same palette registered twice under different names")
	}
}

func TestNoColor(t *testing.T) {
	nc := NoColor()
	if !nc.IsNoColor() || nc.Name != NoColorName {
		t.Fatalf("NoColor() = %+v", nc)
	}
	// No style sets a colour.
	sv := reflect.ValueOf(nc.Styles())
	for i := range sv.NumField() {
		out := sv.Field(i).Interface().(interface{ Render(...string) string }).Render("text")
		if hasColour(out) {
			t.Errorf("%s draws a colour: %q", sv.Type().Field(i).Name, out)
		}
	}
	// Nor does the glamour style, and code is not highlighted.
	g := nc.Glamour()
	if g.CodeBlock.Theme != "" || g.CodeBlock.Chroma != nil {
		t.Error("no-color highlights code")
	}
	walkColours(t, reflect.ValueOf(g), "glamour")
	r, _ := glamour.NewTermRenderer(glamour.WithStyles(g))
	out, _ := r.Render("# T\n\nSome `code` and a [link](http://x).\n\n```go\nfunc f() {}\n```\n")
	if hasColour(out) {
		t.Errorf("no-color render has colours: %q", out)
	}
	if !strings.Contains(out, "`code`") {
		t.Errorf("no-color inline code lost its backticks: %q", out)
	}
}

// walkColours fails for every Color or BackgroundColor set in a glamour
// style.
func walkColours(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			walkColours(t, v.Elem(), path)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if (f.Name == "Color" || f.Name == "BackgroundColor") && !v.Field(i).IsNil() {
				t.Errorf("%s.%s is set", path, f.Name)
			}
			walkColours(t, v.Field(i), path+"."+f.Name)
		}
	}
}

// hasColour reports whether any SGR sequence in s sets a colour.
func hasColour(s string) bool {
	for _, seq := range sgrSeq.FindAllStringSubmatch(s, -1) {
		for _, p := range strings.FieldsFunc(seq[1], func(r rune) bool { return r == ';' || r == ':' }) {
			n, _ := strconv.Atoi(p)
			if 30 <= n && n <= 49 || 90 <= n && n <= 107 {
				return true
			}
		}
	}
	return false
}

var sgrSeq = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

func TestLoadValid(t *testing.T) {
	got, err := Load("../testdata/themes/valid")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Theme{}
	for _, th := range got {
		byName[th.Name] = th
	}
	if len(got) != 3 || len(byName) != 3 {
		t.Fatalf("loaded %d themes: %v", len(got), got)
	}
	ocean := byName["ocean"]
	if !ocean.Dark || ocean.Palette.Accent != "#5fafd7" || ocean.Palette.Accent2 != "#88ccff" {
		t.Errorf("ocean: colours are not normalised: %+v", ocean.Palette)
	}
	dusk := byName["dusk"] // named after its file; extends dark
	dark, _ := Get("dark")
	if dusk.Palette.Accent != "#ff8800" || dusk.Palette.Foreground != dark.Palette.Foreground || !dusk.Dark {
		t.Errorf("dusk does not extend dark: %+v", dusk)
	}
	light := byName["light"] // overrides the built-in light theme
	if light.Dark || light.Palette.Accent != "#0055cc" {
		t.Errorf("light override: %+v", light)
	}
}

func TestLoadMissingDir(t *testing.T) {
	got, err := Load(filepath.Join(t.TempDir(), "nope"))
	if err != nil || got != nil {
		t.Errorf("Load(missing dir) = %v, %v", got, err)
	}
}

// TestLoadInvalid checks the message for each invalid file: it names the
// file and the field.
func TestLoadInvalid(t *testing.T) {
	const dir = "../testdata/themes/invalid"
	want := map[string][]string{
		"bad-colour.json":     {`palette.accent: "#12345" is not a colour (want #rgb or #rrggbb)`},
		"bad-extends.json":    {`extends: "solarized" is not a built-in theme (want one of dark, light, high-contrast)`},
		"bad-json.json":       {`4:1: invalid JSON: invalid character '}' looking for beginning of object key string`},
		"missing-colour.json": {`palette.accent2: missing (every colour is required unless "extends" names a built-in theme)`, `palette.code_type: missing (every colour is required unless "extends" names a built-in theme)`},
		"no-palette.json":     {`palette: missing`},
		"unknown-colour.json": {`palette.acent: unknown colour (did you mean "accent"?)`},
		"unknown-field.json":  {`darkk: unknown field (did you mean "dark"?)`},
		"wrong-type.json":     {`dark: want true or false, got "yes"`},
	}
	got, err := Load(dir)
	if len(got) != 0 {
		t.Errorf("invalid files loaded: %v", got)
	}
	if err == nil {
		t.Fatal("no error")
	}
	var lines []string
	for file, problems := range want {
		for _, p := range problems {
			sep := ": "
			if strings.HasPrefix(p, "4:1") {
				sep = ":"
			}
			lines = append(lines, filepath.Join(dir, file)+sep+p)
		}
	}
	slices.Sort(lines)
	if gotLines := strings.Split(err.Error(), "\n"); !slices.Equal(gotLines, lines) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(gotLines, "\n"), strings.Join(lines, "\n"))
	}
	// Each problem is an *Error with the file and field.
	var te *Error
	if !errors.As(err, &te) || te.File == "" {
		t.Errorf("error is not a *themes.Error: %T", err)
	}
}

func TestLoadKeepsGoodThemesBesideBadOnes(t *testing.T) {
	dir := t.TempDir()
	good, _ := os.ReadFile("../testdata/themes/valid/ocean.json")
	bad, _ := os.ReadFile("../testdata/themes/invalid/bad-colour.json")
	write(t, filepath.Join(dir, "ocean.json"), good)
	write(t, filepath.Join(dir, "worse.json"), bad)
	write(t, filepath.Join(dir, "twin.json"), good) // also named "ocean"
	got, err := Load(dir)
	if len(got) != 1 || got[0].Name != "ocean" {
		t.Errorf("loaded %v", got)
	}
	msg := err.Error()
	for _, s := range []string{"worse.json: palette.accent:", "twin.json: name: theme \"ocean\" is already defined by " + filepath.Join(dir, "ocean.json")} {
		if !strings.Contains(msg, s) {
			t.Errorf("error %q lacks %q", msg, s)
		}
	}
}

func TestParseProblems(t *testing.T) {
	tests := []struct{ name, json, want string }{
		{"not an object", `[1]`, `t.json: want a JSON object, got array`},
		{"null", `null`, `t.json: want a JSON object, got null`},
		{"bad name", `{"name": "my theme", "extends": "dark"}`, `t.json: name: "my theme" is not a theme name`},
		{"name not a string", `{"name": 5, "extends": "dark"}`, `t.json: name: want a string, got 5`},
		{"extends not a string", `{"extends": 1}`, `t.json: extends: want a string, got 1`},
		{"auto is reserved", `{"name": "auto", "extends": "dark"}`, `t.json: name: "auto" is not a theme name`},
		{"colour not a string", `{"extends": "dark", "palette": {"accent": 5}}`, `t.json: palette.accent: want a colour string like "#89b4fa", got 5`},
		{"palette not an object", `{"extends": "dark", "palette": "blue"}`, `t.json: palette: want an object of colours, got "blue"`},
		{"named colours are not hex", `{"extends": "dark", "palette": {"accent": "blue"}}`, `t.json: palette.accent: "blue" is not a colour`},
		{"missing dark", `{"palette": {}}`, `t.json: dark: missing`},
		{"many missing", `{"dark": true, "palette": {"accent": "#fff"}}`, `t.json: palette: missing 23 colours: background, foreground,`},
		{"syntax error position", "{\n  \"dark\": tru\n}", `t.json:2:14: invalid JSON`},
		{"truncated", `{"dark": true`, `t.json:1:13: invalid JSON: unexpected end of JSON input`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse("t.json", []byte(tt.json), Get)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("parse(%s) error %v, want it to contain %q", tt.json, err, tt.want)
			}
		})
	}
}

func TestResolveAndSelect(t *testing.T) {
	user := []Theme{
		{Name: "ocean", Dark: true, Palette: Palette{Accent: "#000001"}},
		{Name: "light", Dark: false, Palette: Palette{Accent: "#000002"}}, // overrides the built-in
	}
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	tests := []struct {
		name    string
		theme   string
		env     func(string) string
		dark    bool
		user    []Theme
		want    string // theme name
		accent  string // to tell user themes from built-ins
		wantErr string
	}{
		{name: "auto on dark", theme: "", dark: true, want: "dark"},
		{name: "auto on light", theme: "auto", dark: false, want: "light"},
		{name: "explicit built-in", theme: "high-contrast", dark: false, want: "high-contrast"},
		{name: "explicit ignores background", theme: "light", dark: true, want: "light"},
		{name: "user theme", theme: "ocean", user: user, want: "ocean", accent: "#000001"},
		{name: "user overrides built-in", theme: "light", user: user, want: "light", accent: "#000002"},
		{name: "auto picks the user's override", theme: "", dark: false, user: user, want: "light", accent: "#000002"},
		{name: "no-color by name", theme: "no-color", want: "no-color"},
		{name: "NO_COLOR with auto", theme: "", env: env("NO_COLOR", "1"), dark: true, want: "no-color"},
		{name: "explicit theme beats NO_COLOR", theme: "dark", env: env("NO_COLOR", "1"), want: "dark"},
		{name: "empty NO_COLOR is unset", theme: "auto", env: env("NO_COLOR", ""), dark: true, want: "dark"},
		{name: "unknown", theme: "solarized", user: user, wantErr: `unknown theme "solarized" (valid: auto, dark, high-contrast, light, no-color, ocean)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := tt.env
			if getenv == nil {
				getenv = env()
			}
			got, err := Select(tt.theme, getenv, tt.dark, tt.user)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || !errors.Is(err, ErrUnknownTheme) {
					t.Fatalf("error %v, want %q wrapping ErrUnknownTheme", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != tt.want || tt.accent != "" && got.Palette.Accent != tt.accent {
				t.Errorf("got %s (accent %s), want %s (accent %s)", got.Name, got.Palette.Accent, tt.want, tt.accent)
			}
			if tt.env == nil {
				if r, _ := Resolve(tt.theme, tt.dark, tt.user); r != got {
					t.Errorf("Resolve and Select disagree without NO_COLOR")
				}
			}
		})
	}
}

func TestDir(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_CONFIG_HOME": "/xdg", "HOME": "/home/u"}, filepath.Join("/xdg", "tackle", "themes")},
		{map[string]string{"HOME": "/home/u"}, filepath.Join("/home/u", ".config", "tackle", "themes")},
		{map[string]string{}, ""},
	}
	for _, tt := range tests {
		if got := Dir(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("Dir(%v) = %q, want %q", tt.env, got, tt.want)
		}
	}
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
