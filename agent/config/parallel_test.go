package config

import (
	"strings"
	"testing"
)

func TestMaxParallelTools(t *testing.T) {
	c, err := Parse([]byte(`{"max_parallel_tools": 3}`))
	if err != nil || c.MaxParallelTools != 3 {
		t.Fatalf("Parse = %+v, %v", c, err)
	}
	if _, err := Parse([]byte(`{"max_parallel_tools": -1}`)); err == nil || !strings.Contains(err.Error(), "max_parallel_tools must be at least 1 (got -1)") {
		t.Errorf("negative: %v", err)
	}
}
