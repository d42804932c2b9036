package app

// tackle completion bash|zsh|fish: a shell's completion script, made from
// the command line as kong parsed it (cli), so that it names every
// command and flag there is and offers the values of those that take a
// few (--output, --mode, --theme …). Nothing runs at completion time:
// the script is static.

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/hooks/approval"
	"github.com/tackle-dev/tackle/themes"
)

// completionCmd is `tackle completion SHELL`.
type completionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"The shell: bash, zsh or fish. Load the script in your shell's startup file: eval \"$$(tackle completion bash)\" (or zsh), or tackle completion fish | source."`
}

// Run writes the script of the shell to stdout.
func (c completionCmd) Run(kctx *kong.Context, stdio Streams) error {
	spec := completionSpec(kctx.Model.Node)
	switch c.Shell {
	case "fish":
		return fishCompletion(stdio.Out, spec)
	case "zsh":
		fmt.Fprint(stdio.Out, "#compdef tackle\n# tackle's completion for zsh: eval \"$(tackle completion zsh)\" in ~/.zshrc\nautoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n")
	default:
		fmt.Fprint(stdio.Out, "# tackle's completion for bash: eval \"$(tackle completion bash)\" in ~/.bashrc\n")
	}
	return bashCompletion(stdio.Out, spec)
}

// compFlag is a flag as the scripts complete it.
type compFlag struct {
	long, short, help string
	value             bool     // it takes a value
	values            []string // the values it takes, when they are few
	dir               bool     // its value is a directory
}

// compCommand is a command and what follows it.
type compCommand struct {
	name, help string
	subs       []compCommand
	args       []string // the values of its first argument, when they are few
}

// compSpec is what the scripts complete: the commands and the flags
// (the root's, which every command reads).
type compSpec struct {
	commands []compCommand
	flags    []compFlag
}

// flagValues are the values of the flags that take one of a few, beyond
// kong's enums. (A function: the themes are parsed on first use, never at
// start-up.)
func flagValues() map[string][]string {
	return map[string][]string{
		"mode":             {string(approval.Default), string(approval.AcceptEdits), string(approval.Plan), string(approval.Yolo)},
		"reasoning-effort": agent.ReasoningEfforts,
		"theme":            themes.Names(nil),
	}
}

// completionSpec reads the commands and flags of the parsed command line.
func completionSpec(root *kong.Node) compSpec {
	var spec compSpec
	values := flagValues()
	for _, f := range root.Flags {
		if f.Hidden {
			continue
		}
		cf := compFlag{long: f.Name, help: firstSentence(f.Help), value: !f.IsBool() && !f.IsCounter()}
		if f.Short != 0 {
			cf.short = string(f.Short)
		}
		switch {
		case f.Enum != "":
			cf.values = strings.Split(f.Enum, ",")
		case values[f.Name] != nil:
			cf.values = values[f.Name]
		}
		cf.dir = f.Tag.Type == "existingdir" || f.Tag.Type == "path"
		spec.flags = append(spec.flags, cf)
	}
	spec.commands = compCommands(root)
	return spec
}

func compCommands(n *kong.Node) []compCommand {
	var out []compCommand
	for _, c := range n.Children {
		if c.Hidden {
			continue
		}
		cc := compCommand{name: c.Name, help: firstSentence(c.Help), subs: compCommands(c)}
		if len(c.Positional) > 0 && c.Positional[0].Enum != "" {
			cc.args = strings.Split(c.Positional[0].Enum, ",")
		}
		out = append(out, cc)
	}
	return out
}

// firstSentence is a help text's first sentence, for a description, cut
// at 100 bytes.
func firstSentence(s string) string {
	for from := 0; ; {
		i := strings.Index(s[from:], ". ")
		if i < 0 {
			break
		}
		i += from
		if strings.HasSuffix(s[:i], "e.g") || strings.HasSuffix(s[:i], "i.e") {
			from = i + 2
			continue
		}
		s = s[:i]
		break
	}
	s = strings.TrimSuffix(s, ".")
	if len(s) > 100 {
		s = strings.ToValidUTF8(s[:99], "") + "…"
	}
	return s
}

// bashCompletion writes the completion function for bash (and zsh's
// bashcompinit): the word before the cursor picks a flag's values; else
// the command path so far picks the words that may follow.
func bashCompletion(w io.Writer, spec compSpec) error {
	var valueFlags, allFlags []string
	var cases strings.Builder
	for _, f := range spec.flags {
		names := []string{"--" + f.long}
		if f.short != "" {
			names = append(names, "-"+f.short)
		}
		allFlags = append(allFlags, names...)
		if !f.value {
			continue
		}
		valueFlags = append(valueFlags, names...)
		switch {
		case f.values != nil:
			fmt.Fprintf(&cases, "    %s) COMPREPLY=($(compgen -W %s -- \"$cur\")); return;;\n", strings.Join(names, "|"), shq(strings.Join(f.values, " ")))
		case f.dir:
			fmt.Fprintf(&cases, "    %s) COMPREPLY=($(compgen -d -- \"$cur\")); return;;\n", strings.Join(names, "|"))
		default:
			fmt.Fprintf(&cases, "    %s) return;;\n", strings.Join(names, "|"))
		}
	}
	var paths strings.Builder
	var walk func(prefix string, cmds []compCommand)
	var top []string
	for _, c := range spec.commands {
		top = append(top, c.name)
	}
	fmt.Fprintf(&paths, "    '') cands=%s;;\n", shq(strings.Join(top, " ")))
	walk = func(prefix string, cmds []compCommand) {
		for _, c := range cmds {
			path := strings.TrimSpace(prefix + " " + c.name)
			var next []string
			for _, s := range c.subs {
				next = append(next, s.name)
			}
			next = append(next, c.args...)
			fmt.Fprintf(&paths, "    %s) cands=%s;;\n", shq(path), shq(strings.Join(next, " ")))
			walk(path, c.subs)
		}
	}
	walk("", spec.commands)
	_, err := fmt.Fprintf(w, `_tackle() {
  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
  COMPREPLY=()
  case "$prev" in
%s  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W %s -- "$cur"))
    return
  fi
  # The commands given so far, the values of flags left out. (No
  # variable is called path or words: zsh's bashcompinit runs this too.)
  local cmds="" i word skip=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="${COMP_WORDS[i]}"
    if [[ -n "$skip" ]]; then skip=""; continue; fi
    case " %s " in *" $word "*) skip=1; continue;; esac
    [[ "$word" == -* ]] && continue
    cmds="${cmds:+$cmds }$word"
  done
  local cands=""
  case "$cmds" in
%s  esac
  COMPREPLY=($(compgen -W "$cands" -- "$cur"))
}
complete -o default -F _tackle tackle
`, cases.String(), shq(strings.Join(allFlags, " ")), strings.Join(valueFlags, " "), paths.String())
	return err
}

// fishCompletion writes fish's completions: a line per command and flag.
func fishCompletion(w io.Writer, spec compSpec) error {
	var b strings.Builder
	b.WriteString("# tackle's completion for fish: tackle completion fish | source (or save it in ~/.config/fish/completions/tackle.fish)\n")
	for _, c := range spec.commands {
		fmt.Fprintf(&b, "complete -c tackle -n 'not __fish_seen_subcommand_from %s' -a %s -d %s\n", strings.Join(names(spec.commands), " "), c.name, shq(c.help))
		for _, s := range c.subs {
			fmt.Fprintf(&b, "complete -c tackle -n '__fish_seen_subcommand_from %s; and not __fish_seen_subcommand_from %s' -f -a %s -d %s\n", c.name, strings.Join(names(c.subs), " "), s.name, shq(s.help))
		}
		if len(c.args) > 0 {
			fmt.Fprintf(&b, "complete -c tackle -n '__fish_seen_subcommand_from %s' -f -a %s\n", c.name, shq(strings.Join(c.args, " ")))
		}
	}
	for _, f := range spec.flags {
		line := "complete -c tackle"
		if f.short != "" {
			line += " -s " + f.short
		}
		line += " -l " + f.long
		switch {
		case f.values != nil:
			line += " -x -a " + shq(strings.Join(f.values, " "))
		case f.dir:
			line += " -r -a '(__fish_complete_directories)'"
		case f.value:
			line += " -r"
		}
		b.WriteString(line + " -d " + shq(f.help) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func names(cmds []compCommand) []string {
	var out []string
	for _, c := range cmds {
		out = append(out, c.name)
	}
	return out
}

// shq quotes s for a shell (bash and fish read it alike).
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
