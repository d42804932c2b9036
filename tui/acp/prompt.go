package acp

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// promptText is the message a prompt's content blocks make, as the UI
// makes one from a line with @mentions: the text, a file the editor
// links or embeds as @path in it, and each file's content after it in a
// block that names it. A file is read as the UI's @path is (inside the
// workspace; not one a deny rule or protection keeps from the model);
// an embedded file's text is the editor's (it may not be saved yet),
// once the same checks let the file be attached. An image goes with the
// message as an image the user attached (kept by Session.SaveImage, so
// the session keeps a reference, not its bytes). notes say what was left
// out, for the user.
func (s *session) promptText(blocks []sdk.ContentBlock) (text string, images []chat.Image, notes []string) {
	var msg, files strings.Builder
	seen := map[string]bool{}
	attach := func(path, editorText string, haveText bool) {
		name, m, err := s.mention(path)
		if err != nil {
			notes = append(notes, fmt.Sprintf("@%s not attached: %v", escape(name), err))
			msg.WriteString("@" + name)
			return
		}
		msg.WriteString("@" + m.Path)
		if seen[m.Path] {
			return
		}
		seen[m.Path] = true
		if haveText {
			m.Text, m.Cut = editorText, 0
			if n := len(m.Text); n > tools.MaxMention {
				keep := tools.MaxMention
				for keep > 0 && !utf8.RuneStart(m.Text[keep]) {
					keep--
				}
				m.Text, m.Cut = m.Text[:keep], int64(n-keep)
			}
		}
		fmt.Fprintf(&files, "\n\n<file path=%q>\n%s", m.Path, m.Text)
		if !strings.HasSuffix(m.Text, "\n") {
			files.WriteByte('\n')
		}
		if m.Cut > 0 {
			fmt.Fprintf(&files, "[the rest of the file, %d bytes, was left out]\n", m.Cut)
		}
		files.WriteString("</file>")
	}
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			msg.WriteString(b.Text.Text)
		case b.ResourceLink != nil:
			attach(b.ResourceLink.Uri, "", false)
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			if isFileURI(r.Uri) {
				attach(r.Uri, r.Text, true)
				continue
			}
			// Not a file (a selection, an unsaved buffer): the editor's
			// text, named by its URI.
			fmt.Fprintf(&files, "\n\n<context uri=%q>\n%s\n</context>", r.Uri, chat.Quote(r.Text, tools.MaxMention))
		case b.Resource != nil:
			notes = append(notes, "a binary resource was not attached: tackle takes text only")
		case b.Image != nil:
			img, err := s.image(b.Image)
			if err != nil {
				notes = append(notes, "an image was not attached: "+err.Error())
				continue
			}
			images = append(images, img)
		case b.Audio != nil:
			notes = append(notes, "audio was not attached: tackle takes text only")
		}
	}
	return msg.String() + files.String(), images, notes
}

// image is an image block of the prompt as an attached image: its bytes
// as they say (never the type the editor gives), kept by SaveImage.
func (s *session) image(b *sdk.ContentBlockImage) (chat.Image, error) {
	if s.SaveImage == nil {
		return chat.Image{}, errors.New("this session takes no images")
	}
	data, err := base64.StdEncoding.DecodeString(b.Data)
	if err != nil {
		return chat.Image{}, fmt.Errorf("its data is not base64: %w", err)
	}
	return s.SaveImage(data)
}

func isFileURI(uri string) bool { return strings.HasPrefix(uri, "file://") }

// mention reads the file a URI (or a path) names as the UI's @path,
// relative to the workspace: name is what the notes call it.
func (s *session) mention(uri string) (name string, m tools.Mention, err error) {
	path := uri
	if isFileURI(uri) {
		u, perr := url.Parse(uri)
		if perr != nil {
			return uri, m, fmt.Errorf("not a file URI: %w", perr)
		}
		path = u.Path
	} else if strings.Contains(uri, "://") {
		return uri, m, fmt.Errorf("not a file")
	}
	name = path
	if filepath.IsAbs(path) {
		rel, ok := inside(s.Root, path)
		if !ok {
			// The editor may name the workspace through a link.
			if real, rerr := filepath.EvalSymlinks(path); rerr == nil {
				rel, ok = inside(s.Root, real)
			}
		}
		if !ok {
			return name, m, fmt.Errorf("it is outside the workspace")
		}
		path, name = rel, filepath.ToSlash(rel)
	}
	m, err = s.Attach(path)
	return name, m, err
}

// inside is path relative to root, when it is inside it.
func inside(root, path string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}
