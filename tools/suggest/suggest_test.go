package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"model", "model", 0},
		{"modle", "model", 1}, // a swap
		{"mdoel", "model", 1},
		{"modl", "model", 1}, {"models", "model", 1}, {"madel", "model", 1},
		{"kitten", "sitting", 3}, {"ca", "abc", 3},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	known := []string{"base_url", "max_requests", "max_retries", "mode", "model"}
	for name, want := range map[string]string{
		"modle":       "model",
		"mdoe":        "mode",
		"max_retries": "max_retries",
		"max_retrys":  "max_retries",
		"baseurl":     "base_url",
		"theme":       "",
		"":            "",
	} {
		if got := Closest(name, known); got != want {
			t.Errorf("Closest(%q) = %q, want %q", name, got, want)
		}
	}
	// Equally near: the name of the same length wins.
	if got := Closest("modex", []string{"mode", "model"}); got != "model" {
		t.Errorf("Closest(modex) = %q, want model", got)
	}
}
