package themes

import "testing"

func TestSmoke(t *testing.T) {
	for _, th := range Builtin() {
		_ = th.Styles()
		_ = th.Glamour()
	}
	if _, err := Resolve("nope", true, nil); err == nil {
		t.Fatal("want error")
	}
}
