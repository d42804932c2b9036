package hooks

import (
	"context"
	"testing"
	"time"
)

// BenchmarkHookCallParts splits what one hook call costs the chain into
// its parts, to show where BenchmarkPreToolChain10's time goes: the call
// itself (with the recover that turns a panic into a failure), the two
// clock readings that time the decision and check the deadline, and the
// hook's own context.WithDeadline (all of the allocations).
func BenchmarkHookCallParts(b *testing.B) {
	run := func(context.Context, *PreToolInput) (PreToolResult, error) { return PreToolResult{}, nil }
	in := &PreToolInput{}
	ctx := context.Background()
	r := NewRegistry()
	b.Run("call", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err, _ := call(run, ctx, in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("call+clock", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			t0 := time.Now()
			if _, err, _ := call(run, ctx, in); err != nil {
				b.Fatal(err)
			}
			if time.Since(t0) > time.Hour {
				b.Fatal("clock")
			}
		}
	})
	b.Run("callHook", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, fail := callHook(ctx, r, 0, run, in); fail != nil {
				b.Fatal(fail)
			}
		}
	})
}
