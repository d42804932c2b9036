package agent

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/tackle-dev/tackle/tools/chat"
)

// Images that tools return (an MCP server's image content) reach the
// model as image input: a user message after the batch's results holds
// them as OpenAI-style image_url parts, while each result's text
// describes its images. Whether the model takes images is learnt by
// trying: a server that answers a request carrying images with a client
// error (400, 413, 415, 422) is asked again with the images left out, and
// if that succeeds the model is taken to take none for the rest of the
// Worker's life: the results' descriptions stand for the images.

// imageStatuses are the answers of a server that refuses image input.
var imageStatuses = []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity}

// imageMessage is the user message that shows the model the images the
// calls of batch returned, in call order, and whether there is one.
func imageMessage(batch []*callState) (AddedMessage, bool) {
	var imgs []chat.Image
	var which []string
	for _, cs := range batch {
		n := len(cs.result.Images())
		if n == 0 {
			continue
		}
		imgs = append(imgs, cs.result.Images()...)
		which = append(which, fmt.Sprintf("%s (%s): %d %s", cs.orig.ID, cs.call.Name, n, plural(n, "image", "images")))
	}
	if len(imgs) == 0 {
		return AddedMessage{}, false
	}
	text := "[The images the tool calls above returned, in order: " + strings.Join(which, "; ") + ".]"
	return AddedMessage{Message: chat.Message{Role: chat.RoleUser, Content: text, Images: imgs}}, true
}

// hasImages reports whether a message of msgs carries images.
func hasImages(msgs []chat.Message) bool {
	return slices.ContainsFunc(msgs, func(m chat.Message) bool { return len(m.Images) > 0 })
}

// withoutImages returns msgs with the images left out of a copy of each
// message that has some, saying so in its text.
func withoutImages(msgs []chat.Message) []chat.Message {
	if !hasImages(msgs) {
		return msgs
	}
	out := slices.Clone(msgs)
	for i, m := range out {
		if n := len(m.Images); n > 0 {
			out[i].Images = nil
			if attached(m.Images) {
				out[i].Content = strings.TrimSpace(m.Content + fmt.Sprintf("\n[%d %s the user attached left out: the model does not take images.]", n, plural(n, "image", "images")))
				continue
			}
			out[i].Content = strings.TrimSpace(m.Content + fmt.Sprintf("\n[%d %s left out: the model does not take images; the tool results describe them.]", n, plural(n, "image", "images")))
		}
	}
	return out
}

// attached reports whether images are the user's (a file the user
// attached), not a tool's.
func attached(images []chat.Image) bool {
	return slices.ContainsFunc(images, func(img chat.Image) bool { return img.Path != "" })
}

// imagesRefused is the warning for a model whose server refused a
// request with images (err) and took it without them: it names the
// model and says what it gets instead from now on.
func imagesRefused(model string, err error, msgs []chat.Message) string {
	user := slices.ContainsFunc(msgs, func(m chat.Message) bool { return attached(m.Images) })
	what := "the tools' descriptions of their images stand for them"
	if user {
		what = "it did not see the images you attached (use a model that accepts images)"
	}
	return fmt.Sprintf("the server refused a request with images (%v): the model %s may not accept images. It got the request without them, and gets none from now on: %s", err, model, what)
}

// refusedImages reports whether err is a server's refusal of a request
// that carried images, which may be the images' fault: a client error
// that is not about the context's length.
func refusedImages(err error, msgs []chat.Message) bool {
	var api *APIError
	return errors.As(err, &api) && slices.Contains(imageStatuses, api.Status) && !IsContextOverflow(err) && hasImages(msgs)
}

// imageBytes is what an image weighs in the estimate of the context: a
// model counts an image as a fixed number of tokens (about a thousand),
// whatever its bytes.
const imageBytes = 1000 * bytesPerToken
