// Package suggest finds the known name a mistyped one was meant to be,
// for "did you mean" in error messages.
package suggest

// Closest returns the name in known nearest to name, when it is at most
// two edits away (an insert, a delete, a replacement or two neighbours
// swapped each count one), or "". Of names equally near, the first of
// the same length as name wins, else the first.
func Closest(name string, known []string) string {
	best, dist := "", 3
	for _, k := range known {
		d := Distance(name, k)
		if d < dist || d == dist && best != "" && len(k) == len(name) && len(best) != len(name) {
			best, dist = k, d
		}
	}
	return best
}

// Distance is the number of edits (insert, delete, replace, swap two
// neighbours) that turn a into b, counted in bytes.
func Distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1) // a transposition
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
