package project

import "testing"

func TestSplitFrontMatter(t *testing.T) {
	for _, tc := range []struct {
		in, front, body string
		ok, err         bool
	}{
		{in: "just a prompt\n", body: "just a prompt\n"},
		{in: "---\nname: a\n---\nbody\n", front: "name: a\n", body: "body\n", ok: true},
		{in: "\ufeff--- \r\nname: a\r\n---\t\r\nbody", front: "name: a\r\n", body: "body", ok: true},
		{in: "---\nname: a\n---", front: "name: a\n", ok: true},
		{in: "---\n---\n", ok: true},
		{in: "---\nname: a\n", ok: true, err: true},
		{in: "text\n---\nname: a\n---\n", body: "text\n---\nname: a\n---\n"},
	} {
		front, body, ok, err := SplitFrontMatter([]byte(tc.in))
		if string(front) != tc.front || string(body) != tc.body || ok != tc.ok || (err != nil) != tc.err {
			t.Errorf("SplitFrontMatter(%q) = %q, %q, %v, %v; want %q, %q, %v, error %v", tc.in, front, body, ok, err, tc.front, tc.body, tc.ok, tc.err)
		}
	}
}
