// Package mcptest helps tests drive the test MCP server
// (tools/mcp/testdata/mcpserver, built by each test binary that uses it):
// start it over streamable HTTP, and the named pipes it reports through,
// which let a test wait for the server without polling.
package mcptest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// StartHTTP starts the test server bin over streamable HTTP on a free
// port, with env added to the test's environment, and returns its URL.
// The server is killed when the test ends.
func StartHTTP(t testing.TB, bin string, env ...string) string {
	t.Helper()
	url, _ := StartHTTPAt(t, bin, "127.0.0.1:0", env...)
	return url
}

// StartHTTPAt is StartHTTP on the address addr, and also returns the
// function that stops the server (and waits for it to be gone), so that
// a test can start another on the same address.
func StartHTTPAt(t testing.TB, bin, addr string, env ...string) (url string, stop func()) {
	t.Helper()
	cmd := exec.Command(bin, "-http", addr)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() { once.Do(func() { cmd.Process.Kill(); cmd.Wait() }) }
	t.Cleanup(stop)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the MCP HTTP server said nothing: %v", err)
	}
	return strings.TrimSpace(line), stop
}

// Fifo makes a named pipe in a temporary directory and returns its path;
// it skips the test where there are none.
func Fifo(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// ReadLine opens a named pipe and returns the first line written to it
// (opening blocks until the writer opens it).
func ReadLine(t testing.TB, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	return strings.TrimSpace(line)
}
