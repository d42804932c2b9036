//go:build !linux

package e2e

import "testing"

// evictFromPageCache does nothing where the page cache cannot be told to
// drop a file (see the Linux version).
func evictFromPageCache(testing.TB, string) {}
