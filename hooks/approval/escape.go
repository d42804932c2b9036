package approval

import (
	"encoding/json"
	"strings"
)

// The ways out of the sandbox a bash call can ask for (tools.BashArgs):
// "network": true, and "outside_sandbox": true, which runs the command
// with all the user's rights. Where commands run in a sandbox, a call
// asking for either asks the user in every mode, yolo included: no allow
// rule, session rule or hook covers it (the rule a person approves
// "always" covers the command, never its way out), and plan mode skips
// it. The sandbox holds in every mode; only the user lets a command out.

// escape says which way out of the sandbox the call asks for, in words
// ("run outside the sandbox", "reach the network"), or "".
func (s *subject) escape() string {
	if s.call.Name != ShellTool {
		return ""
	}
	var a struct {
		Network bool `json:"network"`
		Outside bool `json:"outside_sandbox"`
	}
	if json.Unmarshal([]byte(s.call.Arguments), &a) != nil {
		// A call whose arguments do not decode does not run at all.
		return ""
	}
	var ways []string
	if a.Outside {
		ways = append(ways, "run outside the sandbox")
	}
	if a.Network && !s.p.networkOn() {
		ways = append(ways, "reach the network")
	}
	return strings.Join(ways, " and ")
}
