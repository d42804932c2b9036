package markdown

import (
	"testing"

	"github.com/tackle-dev/tackle/themes"
)

func TestSmoke(t *testing.T) {
	th, _ := themes.Get("dark")
	r := NewRenderer(th.Glamour())
	doc := "# T\n\npara\n\n```go\nx := 1\n\ny\n```\n\nend"
	s := r.NewStream()
	for i := 0; i < len(doc); i += 3 {
		s.Write(doc[i:min(i+3, len(doc))])
		s.Render(40)
	}
	s.Finish()
	if got, want := s.Render(40), r.Render(doc, 40); got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}
