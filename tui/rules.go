package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// RuleFiles saves allow rules to a config file, so that they outlast the
// session: the approval dialog's "always" and /permissions offer it.
type RuleFiles interface {
	// Where names the config file rules are saved to: the project's when
	// project is set, else the user's. why, when set, says why no rule
	// can be saved there (the project's config is not trusted as it is).
	Where(project bool) (path, why string)
	// Save adds rules to that file's allow list, and to the policy as
	// rules of that file. It does I/O: the UI calls it in a Cmd.
	Save(project bool, rules []string) error
}

// ruleSave is rules to save to a config file: the project's, or the
// user's.
type ruleSave struct {
	project bool
	rules   []string
}

// rulesSavedMsg reports a save of rules.
type rulesSavedMsg struct {
	save ruleSave
	path string
	err  error
}

// saveRules is the Cmd that saves rules with files.
func saveRules(files RuleFiles, s ruleSave) tea.Cmd {
	return func() tea.Msg {
		path, _ := files.Where(s.project)
		return rulesSavedMsg{save: s, path: path, err: files.Save(s.project, s.rules)}
	}
}

// rulesSaved says in the transcript where rules went, or why not.
func (m *Model) rulesSaved(msg rulesSavedMsg) {
	rules := strings.Join(msg.save.rules, ", ")
	if msg.err != nil {
		m.note(noteError, fmt.Sprintf("could not save %s: %v", rules, msg.err))
		return
	}
	m.note(noteInfo, fmt.Sprintf("saved allow %s in %s", rules, tildePath(msg.path, m.getenv("HOME"))))
}

// ruleTarget describes where a rule saved with files goes, for a hint:
// the file, or why no rule can go there.
func ruleTarget(files RuleFiles, project bool, home string) (where string, ok bool) {
	path, why := files.Where(project)
	if why != "" {
		return why, false
	}
	return tildePath(path, home), true
}
