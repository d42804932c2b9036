package session

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// An image the user attached (chat.Image.Path) is kept in the session
// file as a reference — its path, digest and type — never as its bytes:
// the file is read again when the session is loaded. An image whose file
// is gone or changed since is left out of the conversation, its message
// saying so, and Loaded.Warnings names it. Tools' images, which have no
// file, are kept whole.

// fileRefs returns r with the bytes of attached images left out. It
// copies what it changes: the caller's messages are the live
// conversation.
func fileRefs(r Record) Record {
	if m := r.Message; m != nil && hasRefs(m.Images) {
		c := *m
		c.Images = refsOnly(m.Images)
		r.Message = &c
	}
	if c := r.Compaction; c != nil {
		cc := *c
		if slices.ContainsFunc(c.Messages, func(m chat.Message) bool { return hasRefs(m.Images) }) {
			cc.Messages = slices.Clone(c.Messages)
			for i := range cc.Messages {
				cc.Messages[i].Images = refsOnly(cc.Messages[i].Images)
			}
		}
		if slices.ContainsFunc(c.Parts, func(p CompactedPart) bool { return p.Message != nil && hasRefs(p.Message.Images) }) {
			cc.Parts = slices.Clone(c.Parts)
			for i, p := range cc.Parts {
				if p.Message != nil {
					m := *p.Message
					m.Images = refsOnly(m.Images)
					cc.Parts[i].Message = &m
				}
			}
		}
		r.Compaction = &cc
	}
	return r
}

func hasRefs(images []chat.Image) bool {
	return slices.ContainsFunc(images, func(img chat.Image) bool { return img.Path != "" })
}

// refsOnly is images with the bytes of those read from a file left out.
func refsOnly(images []chat.Image) []chat.Image {
	if !hasRefs(images) {
		return images
	}
	out := slices.Clone(images)
	for i := range out {
		if out[i].Path != "" {
			out[i].Data = nil
		}
	}
	return out
}

// reattach reads again the files of the attached images the records
// refer to, each file once.
func (l *Loaded) reattach() {
	type read struct {
		img  chat.Image
		why  string // why it is left out, if so
		seen bool
	}
	cache := map[[2]string]*read{}
	fix := func(m *chat.Message) {
		if m == nil || !hasRefs(m.Images) {
			return
		}
		var kept []chat.Image
		var notes []string
		for _, img := range m.Images {
			if img.Path == "" || img.Data != nil {
				kept = append(kept, img)
				continue
			}
			key := [2]string{img.Path, img.SHA256}
			r, ok := cache[key]
			if !ok {
				r = &read{}
				cur, err := tools.ReadImage(img.Path)
				switch {
				case err != nil:
					r.why = fmt.Sprintf("it cannot be read now (%v)", err)
				case cur.SHA256 != img.SHA256:
					r.why = "the file changed since it was attached"
				default:
					r.img = cur
				}
				cache[key] = r
			}
			if r.why == "" {
				kept = append(kept, r.img)
				continue
			}
			notes = append(notes, fmt.Sprintf("[the image %s was attached here; it is left out: %s]", img.Path, r.why))
			if !r.seen {
				r.seen = true
				l.Warnings = append(l.Warnings, fmt.Sprintf("%s: the image %s is left out of the conversation: %s", l.Path, img.Path, r.why))
			}
		}
		m.Images = kept
		if len(notes) > 0 {
			m.Content = strings.TrimSpace(m.Content + "\n" + strings.Join(notes, "\n"))
		}
	}
	for i := range l.Records {
		r := &l.Records[i]
		fix(r.Message)
		if c := r.Compaction; c != nil {
			for j := range c.Messages {
				fix(&c.Messages[j])
			}
			for _, p := range c.Parts {
				fix(p.Message)
			}
		}
	}
}
