package tools

// Kind says what a tool can do. Every tool declares its kind where it is
// defined (New); an approval policy and the UI learn it from the tool,
// never from its name.
type Kind uint8

// The kinds of tools. The zero Kind is no kind at all: a tool that
// declares none must be treated like KindExec, the most guarded kind.
const (
	KindRead    Kind = iota + 1 // only reads the workspace
	KindEdit                    // changes files in the workspace
	KindExec                    // runs commands
	KindNetwork                 // reaches other machines
)

var kindNames = [...]string{KindRead: "read", KindEdit: "edit", KindExec: "exec", KindNetwork: "network"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "none"
}
