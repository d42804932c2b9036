package agent

import (
	"testing"

	"github.com/tackle-dev/tackle/tools/chat"
)

// Which answers to a request with images make the Worker try again
// without them: a client error about the request, never one about the
// context's length (that compacts) nor a server error (that is retried).
func TestRefusedImages(t *testing.T) {
	with := []chat.Message{{Role: chat.RoleUser, Content: "look", Images: []chat.Image{{MIMEType: "image/png", Data: []byte("x")}}}}
	without := []chat.Message{{Role: chat.RoleUser, Content: "look"}}
	cases := []struct {
		err  error
		msgs []chat.Message
		want bool
	}{
		{&APIError{Status: 400, Message: "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj"}, with, true},
		{&APIError{Status: 400, Message: "Invalid content type. image_url is only supported by certain models."}, with, true},
		{&APIError{Status: 413, Message: "request entity too large"}, with, true},
		{&APIError{Status: 400, Message: "image input is not supported"}, without, false},
		{&APIError{Status: 400, Message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."}, with, false},
		{&APIError{Status: 500, Message: "internal error"}, with, false},
		{&APIError{Status: 401, Message: "Incorrect API key provided"}, with, false},
	}
	for _, c := range cases {
		if got := refusedImages(c.err, c.msgs); got != c.want {
			t.Errorf("refusedImages(%v, %d images) = %v, want %v", c.err, len(c.msgs[0].Images), got, c.want)
		}
	}
}
