package config

import "testing"

func TestMaxParallelTools(t *testing.T) {
	c, err := Parse([]byte(`{"max_parallel_tools": 3}`))
	if err != nil || c.MaxParallelTools == nil || *c.MaxParallelTools != 3 {
		t.Fatalf("Parse = %+v, %v", c, err)
	}
	// The range is checked where every source of the setting is
	// (app/settings.go), so the file's own value is kept as written.
	if c, err := Parse([]byte(`{"max_parallel_tools": -1}`)); err != nil || *c.MaxParallelTools != -1 {
		t.Errorf("negative: %+v, %v", c, err)
	}
	if _, err := Parse([]byte(`{"max_parallel_tools": "3"}`)); err == nil {
		t.Error("a string for a number parsed")
	}
}
