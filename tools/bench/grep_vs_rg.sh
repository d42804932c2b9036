#!/usr/bin/env bash
# Compares tackle's grep tool with ripgrep on the same search.
#
#   tools/bench/grep_vs_rg.sh [DIR [PATTERN [RUNS]]]
#
# DIR defaults to $(go env GOROOT)/src, PATTERN to 'func \w+Context\(',
# RUNS to 10. Installs nothing: without rg on PATH it says so and stops.
#
# Both search the same files: tackle searches hidden files and honours
# .gitignore files whether or not DIR is a git repository, so rg runs with
# --hidden --no-require-git (and --no-config). Both skip .git, binary files
# and symbolic links. Counts are matching lines: rg -c summed over files,
# and the total on the last line of tackle's result. Times are the best of
# RUNS runs after one warm-up run each (so the page cache is warm for both).
set -euo pipefail

cd "$(dirname "$0")/../.."
dir=${1:-$(go env GOROOT)/src}
pattern=${2:-'func \w+Context\('}
runs=${3:-10}

if ! command -v rg >/dev/null; then
	echo "ripgrep (rg) is not on PATH; install it to compare (e.g. apt-get install ripgrep)." >&2
	exit 0
fi

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/grepcmd" ./tools/bench/grepcmd

rgflags=(--no-config --hidden --no-require-git)

# best_of prints the shortest wall time, in milliseconds, of runs of "$@".
best_of() {
	"$@" >/dev/null # warm-up
	local best= start end ms
	for ((i = 0; i < runs; i++)); do
		start=$(date +%s%N)
		"$@" >/dev/null
		end=$(date +%s%N)
		ms=$(((end - start) / 1000000))
		if [[ -z $best || $ms -lt $best ]]; then best=$ms; fi
	done
	echo "$best"
}

rg_ms=$(best_of rg "${rgflags[@]}" -n -e "$pattern" "$dir")
tackle_ms=$(best_of "$bin/grepcmd" -q "$dir" "$pattern")

rg_count=$(rg "${rgflags[@]}" -c -e "$pattern" "$dir" | awk -F: '{ s += $NF } END { print s + 0 }')
summary=$("$bin/grepcmd" -q "$dir" "$pattern")
# "[85 matching lines in 53 files.]" or "[Showed 200 of 4127 matching lines in ...]"
tackle_count=$(sed -E 's/^\[(Showed [0-9]+ of )?([0-9]+) matching line.*/\2/; s/^No matches.*/0/' <<<"$summary")

echo "dir:     $dir"
echo "pattern: $pattern"
echo "rg:      ${rg_ms} ms  ${rg_count} matching lines  (rg ${rgflags[*]} -n -e PATTERN DIR)"
echo "tackle:  ${tackle_ms} ms  ${tackle_count} matching lines  (grepcmd -q DIR PATTERN)"
awk -v t="$tackle_ms" -v r="$rg_ms" 'BEGIN { if (r > 0) printf "ratio:   %.2fx (tackle / rg)\n", t / r }'
if [[ $rg_count != "$tackle_count" ]]; then
	echo "MISMATCH: the counts differ" >&2
	exit 1
fi
