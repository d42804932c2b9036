package app

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tackle-dev/tackle/app/config"
)

// TestSettingsNameRealFlagsAndFields: each setting names a flag of the
// command line and, when the file can give it, a field of the config
// file, so that errors name both correctly.
func TestSettingsNameRealFlagsAndFields(t *testing.T) {
	var c cli
	parser, err := newParser(&c, Streams{}, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	flags := map[string]bool{}
	for _, f := range parser.Model.Flags {
		flags[f.Name] = true
	}

	// A config with every field set to something.
	var cfg config.Config
	v := reflect.ValueOf(&cfg).Elem()
	fields := map[string]bool{}
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		fields[name] = true
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Int, reflect.Int64:
			f.SetInt(1)
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		}
	}
	var st Settings
	for _, s := range st.settings() {
		if !flags[s.flag] {
			t.Errorf("setting %q: no such flag", s.flag)
		}
		if s.fromFile(&cfg) && !fields[fieldName(s.flag)] {
			t.Errorf("setting %q reads the file, which has no field %q", s.flag, fieldName(s.flag))
		}
	}
}
