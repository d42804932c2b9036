package sandbox

import (
	"bufio"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// listeners are servers of the test process (outside the sandbox): TCP
// and UDP on the host's 127.0.0.1, a unix socket by path (a daemon's, say
// Docker's) and an abstract one.
type listeners struct {
	tcp          net.Listener
	udp          net.PacketConn
	unix, abstr  net.Listener
	unixPath     string
	abstractName string
}

func listen(t *testing.T, dir string) *listeners {
	t.Helper()
	l := &listeners{unixPath: filepath.Join(dir, "daemon.sock"), abstractName: fmt.Sprintf("@tackle-sandbox-test-%s", filepath.Base(dir))}
	var err error
	if l.tcp, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	if l.udp, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	if l.unix, err = net.Listen("unix", l.unixPath); err != nil {
		t.Fatal(err)
	}
	if l.abstr, err = net.Listen("unix", l.abstractName); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.tcp.Close(); l.udp.Close(); l.unix.Close(); l.abstr.Close() })
	return l
}

// script tries each listener from inside the sandbox.
func (l *listeners) script() string {
	return fmt.Sprintf(`
		(exec 3<>/dev/tcp/127.0.0.1/%d && echo "from the sandbox" >&3 && echo tcp-connected)
		(echo "from the sandbox" > /dev/udp/127.0.0.1/%d && echo udp-sent)
		SANDBOX_TEST_HELPER=connect-unix "$HELPER" %s
		SANDBOX_TEST_HELPER=connect-unix "$HELPER" %s
		true`, l.tcp.Addr().(*net.TCPAddr).Port, l.udp.LocalAddr().(*net.UDPAddr).Port, l.unixPath, l.abstractName)
}

// reached says which listeners the sandbox reached. After the command,
// the test sends a sentinel to each: what arrives first is the sandbox's
// if it got through, else the sentinel (no waiting on a clock).
func (l *listeners) reached(t *testing.T) []string {
	t.Helper()
	var got []string
	firstLine := func(ln net.Listener, network, addr string) string {
		c, err := net.Dial(network, addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintln(c, "sentinel")
		a, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		line, _ := bufio.NewReader(a).ReadString('\n')
		return line
	}
	if firstLine(l.tcp, "tcp", l.tcp.Addr().String()) != "sentinel\n" {
		got = append(got, "tcp")
	}
	if firstLine(l.unix, "unix", l.unixPath) != "sentinel\n" {
		got = append(got, "unix")
	}
	if firstLine(l.abstr, "unix", l.abstractName) != "sentinel\n" {
		got = append(got, "abstract")
	}
	c, err := net.Dial("udp", l.udp.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintln(c, "sentinel")
	buf := make([]byte, 100)
	n, _, err := l.udp.ReadFrom(buf)
	if err != nil {
		t.Fatal(err)
	}
	if string(buf[:n]) != "sentinel\n" {
		got = append(got, "udp")
	}
	return got
}

func TestCommandNetworkOff(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		l := listen(t, f.root)
		r := f.run(t, m, l.script())
		if got := l.reached(t); len(got) > 0 {
			t.Errorf("the sandbox reached %v:\n%s", got, r)
		}
		// A server and client inside the sandbox: the loopback of the
		// network namespace at level full; Landlock's TCP rule and the
		// socket filter take it at level landlock.
		r = f.run(t, m, `SANDBOX_TEST_HELPER=serve-dial "$HELPER"`)
		if m.launch.level == LevelFull && (r.err != nil || !strings.Contains(r.out, "pong")) {
			t.Errorf("a local server inside the sandbox:\n%s", r)
		}
		if m.launch.level == LevelLandlock && r.err == nil {
			t.Errorf("TCP inside the sandbox at level landlock:\n%s", r)
		}
	})
}

func TestCommandNetworkOn(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		f := newFixture(t, "", false)
		l := listen(t, f.root)
		p := f.policy
		p.Network = true
		r := f.run(t, m, l.script(), p)
		got := l.reached(t)
		want := []string{"tcp", "unix", "udp"}
		if m.launch.abi < 6 {
			want = append(want, "abstract")
		}
		for _, w := range want {
			if !contains(got, w) {
				t.Errorf("with network, the sandbox did not reach %s (reached %v):\n%s", w, got, r)
			}
		}
		if m.launch.abi >= 6 && contains(got, "abstract") {
			t.Errorf("an abstract unix socket outside the sandbox was reached (Landlock ABI %d scopes them)", m.launch.abi)
		}
	})
}
