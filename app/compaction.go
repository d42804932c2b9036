package app

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/tackle-dev/tackle/agent/window"
	"github.com/tackle-dev/tackle/app/config"
)

// compaction is what a harness's Workers need to compact: the models'
// context windows and the config's settings.
type compaction struct {
	// window returns a model's context window in tokens, 0 when unknown.
	window    func(ctx context.Context, model string) int
	threshold float64 // 0: the Worker's default
	keepTurns int     // 0: the Worker's default
}

// newCompaction reads the compaction settings of the user config. A model's window is
// the config's context_window, else what the server says (cached for a
// day in the state directory), else the built-in table; it is looked up
// once per model for the whole process, whatever the Workers.
func newCompaction(st Settings, env environ) compaction {
	o := window.Options{BaseURL: st.BaseURL, APIKey: st.APIKey, Configured: st.User.ContextWindow}
	if state, err := config.StateDir(env.get); err == nil {
		o.CacheFile = filepath.Join(state, "context-windows.json")
	}
	return compaction{
		window:    memoWindows(o),
		threshold: float64(st.User.CompactThreshold),
		keepTurns: int(st.User.CompactKeepTurns),
	}
}

// memoWindows returns window.Lookup with the options o for a model,
// remembering each model's answer. An answer cut short by ctx is not
// remembered.
func memoWindows(o window.Options) func(context.Context, string) int {
	var mu sync.Mutex
	known := map[string]int{}
	return func(ctx context.Context, model string) int {
		mu.Lock()
		n, ok := known[model]
		mu.Unlock()
		if ok {
			return n
		}
		lo := o
		lo.Model = model
		n = window.Lookup(ctx, lo).Tokens
		if ctx.Err() == nil {
			mu.Lock()
			known[model] = n
			mu.Unlock()
		}
		return n
	}
}
