package tools

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// binarySample is how much of a file is looked at to tell text from binary.
const binarySample = 8 << 10

// openRegular opens the resolved path rel for reading and refuses
// anything but a regular file. O_NONBLOCK keeps a FIFO from blocking the
// open; it does not change how regular files are read.
func (w *Workspace) openRegular(rel string) (*os.File, fs.FileInfo, error) {
	f, err := w.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		if fi.IsDir() {
			return nil, fi, &fs.PathError{Op: "open", Path: rel, Err: syscall.EISDIR}
		}
		return nil, fi, &fs.PathError{Op: "open", Path: rel, Err: errNotRegular}
	}
	return f, fi, nil
}

// failPath turns an error met while resolving or opening path (as the
// model sent it) into a result the model can act on.
func (w *Workspace) failPath(path string, err error) Result {
	err = w.fileError(path, err)
	shown := quotePath(path)
	var pe *PathError
	switch {
	case errors.As(err, &pe):
		msg := pe.Error()
		if errors.Is(pe, ErrOutsideWorkspace) {
			msg += ". Only paths inside the workspace can be used"
		}
		return Fail("%s%s.", string(unicode.ToUpper(rune(msg[0]))), msg[1:])
	case errors.Is(err, fs.ErrNotExist):
		return Fail("%s does not exist. Check the path (list_dir or glob can help find it).", shown)
	case errors.Is(err, syscall.EISDIR):
		return Fail("%s is a directory. Use list_dir to see what it contains.", shown)
	case errors.Is(err, syscall.ENOTDIR):
		return Fail("%s cannot be used: one of its parents is a file, not a directory.", shown)
	case errors.Is(err, errNotRegular):
		return Fail("%s is not a regular file (it is a device, socket or named pipe).", shown)
	case errors.Is(err, syscall.ELOOP):
		return Fail("%s cannot be used: too many levels of symbolic links (a link loop?).", shown)
	case errors.Is(err, fs.ErrPermission):
		return Fail("Permission denied: %s.", shown)
	default:
		return Fail("Cannot access %s: %v.", shown, err)
	}
}

// binaryReason returns why a file whose first bytes are sample looks
// binary, or "" when it looks like text: a NUL byte, or mostly bytes that
// are not UTF-8.
func binaryReason(sample []byte) string {
	if len(sample) > binarySample {
		sample = sample[:binarySample]
	}
	if bytes.IndexByte(sample, 0) >= 0 {
		return "it contains NUL bytes"
	}
	invalid := 0
	for i := 0; i < len(sample); {
		r, n := utf8.DecodeRune(sample[i:])
		if r == utf8.RuneError && n == 1 {
			if !utf8.FullRune(sample[i:]) {
				break // cut at the end of the sample
			}
			invalid++
		}
		i += n
	}
	if invalid > 0 && invalid*10 > len(sample)*3 {
		return fmt.Sprintf("%d%% of its first bytes are not valid UTF-8", invalid*100/len(sample))
	}
	return ""
}

// countLines counts lines as an editor shows them: a last line without a
// newline still counts.
func countLines(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			n++
		}
	}
	if len(s) > 0 && s[len(s)-1] != '\n' {
		n++
	}
	return n
}

// plural returns "1 line", "2 lines", "3 entries".
func plural(n int, word string) string {
	switch {
	case n == 1:
		return fmt.Sprintf("%d %s", n, word)
	case strings.HasSuffix(word, "y"):
		return fmt.Sprintf("%d %sies", n, word[:len(word)-1])
	default:
		return fmt.Sprintf("%d %ss", n, word)
	}
}

// humanSize formats a byte count for people and models: 345 B, 12.3 KiB.
func humanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
