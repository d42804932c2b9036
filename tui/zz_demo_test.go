package tui

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/tackle-dev/tackle/agent/llmtest"
)

func TestZZDemoServer(t *testing.T) {
	if os.Getenv("DEMO") == "" {
		t.Skip()
	}
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, os.Getenv("DEMO")))
	os.WriteFile("/tmp/demo/url", []byte(srv.URL()), 0o644)
	fmt.Println(srv.URL())
	time.Sleep(10 * time.Minute)
}
