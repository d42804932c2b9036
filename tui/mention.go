package tui

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// Mentions backs @path in the editor: the workspace's files for the
// completion menu, and a file's content to attach to the message.
type Mentions interface {
	// Files lists the workspace's files (as the search tools see them).
	Files() []string
	// Attach reads a mentioned file for the message: inside the
	// workspace, not a protected or denied file, bounded.
	Attach(path string) (tools.Mention, error)
}

// mentionCandidate is what the @ menu may offer: a file, or a resource
// of an MCP server (server:uri).
type mentionCandidate struct{ text, help string }

// mentionEntries are the files and MCP resources matching the word being
// typed when it starts with "@", best first.
func (m *Model) mentionEntries(v string) []menuEntry {
	if m.opts.Mentions == nil && m.opts.MCP == nil || strings.ContainsAny(v, "\n") {
		return nil
	}
	start := strings.LastIndexAny(v, " \t") + 1
	word := v[start:]
	if !strings.HasPrefix(word, "@") {
		return nil
	}
	query := strings.ToLower(word[1:])
	type hit struct {
		mentionCandidate
		score int
	}
	var hits []hit
	candidates := m.resourceEntries()
	if m.opts.Mentions != nil {
		for _, f := range m.mentionFiles() {
			candidates = append(candidates, mentionCandidate{text: f, help: "attach the file"})
		}
	}
	for _, c := range candidates {
		if s, ok := fuzzyScore(strings.ToLower(c.text), query); ok {
			hits = append(hits, hit{c, s})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(len(a.text), len(b.text)), strings.Compare(a.text, b.text))
	})
	var out []menuEntry
	for _, h := range hits[:min(len(hits), 50)] {
		out = append(out, menuEntry{label: "@" + h.text, help: h.help, text: v[:start] + "@" + h.text + " ", wait: true})
	}
	return out
}

// mentionFiles lists the workspace's files once per session.
func (m *Model) mentionFiles() []string {
	m.files.once.Do(func() { m.files.list = m.opts.Mentions.Files() })
	return m.files.list
}

// fileList is the workspace's files, listed on first use.
type fileList struct {
	once sync.Once
	list []string
}

// fuzzyScore matches query's characters in order in p: a match in the
// file's base name counts more, a run of adjacent characters more still.
func fuzzyScore(p, query string) (int, bool) {
	if query == "" {
		return 0, true
	}
	if strings.HasPrefix(path.Base(p), query) {
		return 1000 - len(p), true
	}
	if strings.Contains(p, query) {
		return 500 - len(p), true
	}
	score, i, run := 0, 0, 0
	for j := 0; j < len(p) && i < len(query); j++ {
		if p[j] == query[i] {
			i++
			run++
			score += run
			continue
		}
		run = 0
	}
	return score, i == len(query)
}

// mentionRE finds @path words in a message; @"a path" may hold spaces
// (a pasted path).
var mentionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|\s)@("[^"\n]+"|[^\s]+)`) })

// attachMentions returns the message to send for text — text, then the
// content of each file it mentions with @path, each in a block that names
// it — and the images it mentions, for the message's image parts. Files
// that cannot be attached are said in the transcript and left out.
func (m *Model) attachMentions(text string) (string, []chat.Image) {
	if m.opts.Mentions == nil {
		return text, nil
	}
	var b strings.Builder
	var images []chat.Image
	seen := map[string]bool{}
	for _, match := range mentionRE().FindAllStringSubmatch(text, -1) {
		p := strings.TrimRight(match[1], ".,;:!?)")
		if q, ok := strings.CutPrefix(match[1], `"`); ok {
			p = strings.TrimSuffix(q, `"`)
		} else if _, ok := m.resourceRef(strings.TrimRight(match[1], ".,;!?)")); ok {
			continue // a resource: read in a Cmd (readResources)
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		f, err := m.opts.Mentions.Attach(p)
		if err != nil {
			m.note(noteWarn, fmt.Sprintf("@%s not attached: %v", p, err))
			continue
		}
		if f.Image != nil {
			images = append(images, *f.Image)
			fmt.Fprintf(&b, "\n\n[image %d: %s (%s), attached below]", len(images), f.Path, tools.ImageSize(*f.Image))
			m.note(noteInfo, fmt.Sprintf("attached the image %s (%s)", f.Path, tools.ImageSize(*f.Image)))
			continue
		}
		fmt.Fprintf(&b, "\n\n<file path=%q>\n%s", f.Path, f.Text)
		if !strings.HasSuffix(f.Text, "\n") {
			b.WriteByte('\n')
		}
		note := fmt.Sprintf("attached %s (%s)", f.Path, byteSize(int64(len(f.Text))))
		if f.Cut > 0 {
			fmt.Fprintf(&b, "[the rest of the file, %d bytes, was left out]\n", f.Cut)
			note += fmt.Sprintf(", its first %s only", byteSize(tools.MaxMention))
		}
		b.WriteString("</file>")
		m.note(noteInfo, note)
	}
	if b.Len() == 0 {
		return text, nil
	}
	return text + b.String(), images
}

func byteSize(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/1024)
}

// fileLimit bounds the files the @path menu lists.
const fileLimit = 20000

// WorkspaceMentions is Mentions over a workspace: files as the search
// tools list them, read inside the workspace only.
type WorkspaceMentions struct {
	WS *tools.Workspace
	// Refuse says why a file (workspace-relative, links resolved) may
	// not be attached: a deny rule, a protected or secret file. "" lets it.
	Refuse func(rel string) string
}

// Files lists the workspace's files, at most fileLimit.
func (w WorkspaceMentions) Files() []string {
	files, _ := w.WS.Files(context.Background(), fileLimit)
	return files
}

// Attach reads a mentioned file: one in the workspace, or an image
// anywhere named by its absolute path (a screenshot's path pasted into
// the editor), which a rule may refuse all the same.
func (w WorkspaceMentions) Attach(path string) (tools.Mention, error) {
	if abs := expandHome(path); filepath.IsAbs(abs) {
		if _, err := w.WS.Resolve(abs); err != nil {
			// Judged, and read, where its links lead: a link planted
			// in the workspace or in /tmp may lead to an image a rule
			// denies (the path as typed is judged too).
			real, err := filepath.EvalSymlinks(abs)
			if err != nil {
				return tools.Mention{}, err
			}
			if w.Refuse != nil {
				for _, p := range []string{abs, real} {
					if why := w.Refuse(p); why != "" {
						return tools.Mention{}, errors.New(why)
					}
				}
			}
			img, err := tools.ReadImage(real)
			if err != nil {
				if errors.Is(err, tools.ErrNotImage) {
					return tools.Mention{}, fmt.Errorf("%s is outside the workspace: only an image is attached from there", path)
				}
				return tools.Mention{}, err
			}
			return tools.Mention{Path: img.Path, Image: &img}, nil
		}
	}
	return w.WS.ReadMention(path, w.Refuse)
}

// expandHome turns a leading ~/ into the home directory.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}

// imageExts are the names of image files a pasted path may end with: a
// paste of one such path becomes an @mention (what it holds is then
// sniffed from its bytes, not its name).
var imageExts = []string{".png", ".jpg", ".jpeg", ".gif", ".webp"}

// pastedImagePath returns the @mention for a paste that is one image
// file's path — as a terminal pastes a dropped file: maybe quoted, with
// backslashes before spaces, or a file:// URL — and whether it is one.
func pastedImagePath(content string) (string, bool) {
	p := strings.TrimSpace(content)
	if p == "" || strings.ContainsAny(p, "\n\r") {
		return "", false
	}
	if len(p) >= 2 && (p[0] == '\'' || p[0] == '"') && p[len(p)-1] == p[0] {
		p = p[1 : len(p)-1]
	} else {
		p = strings.ReplaceAll(p, "\\ ", " ")
	}
	if rest, ok := strings.CutPrefix(p, "file://"); ok {
		if u, err := url.PathUnescape(rest); err == nil {
			p = u
		}
	}
	if !filepath.IsAbs(p) && !strings.HasPrefix(p, "~/") || strings.Contains(p, `"`) {
		return "", false
	}
	if !slices.Contains(imageExts, strings.ToLower(filepath.Ext(p))) {
		return "", false
	}
	if strings.ContainsAny(p, " \t") {
		return `@"` + p + `" `, true
	}
	return "@" + p + " ", true
}
