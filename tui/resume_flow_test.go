package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/tackle-dev/tackle/agent"
	"github.com/tackle-dev/tackle/agent/llmtest"
	"github.com/tackle-dev/tackle/agent/session"
	"github.com/tackle-dev/tackle/tools"
	"github.com/tackle-dev/tackle/tools/chat"
)

// storeSessions is Sessions on a real store: a session opens as a real
// Worker on its recorded conversation, recording on.
type storeSessions struct {
	store *session.Store
	ws    string
	// worker returns a Worker on history that records with rec.
	worker func(history []chat.Message, rec *session.Recorder) *agent.Worker
}

func (s *storeSessions) List() ([]session.Info, error) { return s.store.List(s.ws) }

func (s *storeSessions) Open(id string) (Resumed, error) {
	info, err := s.store.Find(s.ws, id)
	if err != nil {
		return Resumed{}, err
	}
	w, l, err := s.store.Reopen(info.Path)
	if err != nil {
		return Resumed{}, err
	}
	return Resumed{ID: l.Header.ID, Agent: s.worker(l.Messages(), session.NewRecorder(w, nil)), Model: l.Model(), Records: l.Records}, nil
}

// The real parts: a session recorded by a Worker is picked in the list at
// start, its transcript is shown as it was, and the next prompt goes on
// with its whole conversation.
func TestFlowResumePickerGoesOnWithTheConversation(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.LoadScript(t, filepath.Join("..", "testdata", "e2e", "session_two_turns.json")))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	toolbox := tools.NewRegistry(ws)
	bridge := NewBridge()
	newWorker := func(history []chat.Message, rec *session.Recorder, onEvent func(agent.Event)) *agent.Worker {
		return agent.New(agent.Config{
			Client:  agent.NewOpenAI(agent.OpenAIConfig{BaseURL: srv.URL(), APIKey: "sk-test", MaxRetries: -1}),
			Model:   "flow-model",
			System:  "You are a test.",
			History: history,
			Tools:   toolbox,
			OnEvent: func(e agent.Event) {
				rec.Event(e)
				onEvent(e)
			},
			OnMessage: rec.Message,
		})
	}

	store := session.Open(filepath.Join(t.TempDir(), "sessions"))
	first := store.Recorder(session.Header{Workspace: ws.Dir(), Model: "flow-model"}, nil)
	if out, err := newWorker(nil, first, func(agent.Event) {}).Run(context.Background(), "what do the notes say?"); err != nil || out.Status != agent.StatusFinished {
		t.Fatalf("first session: %+v, %v", out, err)
	}
	first.Close()

	m := New(Options{
		Agent:       &fakeAgent{},
		Bridge:      bridge,
		Tools:       toolbox,
		Model:       "flow-model",
		Workdir:     dir,
		Theme:       "dark",
		Env:         []string{},
		PickSession: true,
		Sessions: &storeSessions{store: store, ws: ws.Dir(), worker: func(h []chat.Message, rec *session.Recorder) *agent.Worker {
			return newWorker(h, rec, bridge.Send)
		}},
	})
	p := newProbe(m)
	tm := teatest.NewTestModel(t, p,
		teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	t.Cleanup(func() {
		bridge.Close()
		_ = tm.Quit()
	})
	f := &flow{t: t, srv: srv, workspace: dir, tm: tm, p: p}

	f.p.waitText(t, "Resume a session")
	screen := f.p.waitText(t, "what do the notes say?")
	if !strings.Contains(screen, "1  flow-model") {
		t.Errorf("the list does not show the turns and model:\n%s", screen)
	}
	f.key("enter")
	screen = f.p.waitText(t, "resumed session")
	for _, want := range []string{"› what do the notes say?", "● Reading it.", "✓ read_file  notes.txt", "hello", "● The notes say hello."} {
		if !strings.Contains(screen, want) {
			t.Errorf("the resumed transcript lacks %q:\n%s", want, screen)
		}
	}
	f.submit("what did I ask?")
	f.p.waitText(t, "You asked about the notes; they say hello.")
	msgs := srv.Requests()[2].Messages
	if len(msgs) != 6 || msgs[1].Content != "what do the notes say?" || msgs[5].Content != "what did I ask?" {
		t.Errorf("the request after the resume = %+v", msgs)
	}
	f.key("ctrl+d")
	tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second))

	info, _, err := store.Latest(ws.Dir())
	if err != nil || info.Turns != 2 || info.Status != "finished" {
		t.Errorf("the session after the resumed turn: %+v, %v", info, err)
	}
}
