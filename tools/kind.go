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

// Access says how a file tool reaches the paths its calls name: what a
// rule about a path keeps from the tool. A file tool declares it with its
// argument type (PathArgs), so that an approval policy applies a rule
// about reading a file to every tool that shows what the file holds,
// whatever the tool is called. Tools that name no paths have none.
type Access uint8

// The ways a file tool reaches its paths; a tool may do several.
const (
	ReadsFiles Access = 1 << iota // it shows what a file holds
	EditsFiles                    // it changes a file
	ListsNames                    // it shows the names in a directory, not what files hold
)

// Main is the way of reaching paths that a rule naming the tool is
// about: editing for a tool that edits (a rule edit_file(x) is about
// changing x, though edit_file also shows the file), else what the tool
// does.
func (a Access) Main() Access {
	if a&EditsFiles != 0 {
		return EditsFiles
	}
	return a
}
