#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What including headroom costs a translation unit: the CPU time (user + system) of compiling
# a file that includes one header and nothing else, at -std=c++20 -O2, against a baseline
# file that includes <vector> <string> <chrono> <cmath>; the median of several compiles each,
# printed as seconds and as a ratio to the baseline. CPU time, not wall time, so that a busy
# machine moves the figures less.
#
# Usage: bench/compile_time.sh [-n RUNS] [-p] [-c COMPILER]... [-f EXTRA_FLAG]... [HEADER...]
#   -n RUNS      compiles per file (default 3; the median is printed)
#   -p           also each header through a precompiled header of it, as CMake's
#                target_precompile_headers (and HEADROOM_PRECOMPILE) builds and uses it
#                (clang: -fpch-instantiate-templates); the build of the precompiled header is
#                not timed
#   -c COMPILER  a compiler to measure (repeatable; default g++, and clang++ when present)
#   -f FLAG      an extra compiler flag (repeatable), e.g. -f -stdlib=libc++
#   HEADER       headers to measure, relative to include/ (default: headroom/headroom.hpp and
#                every public header, detail/ excluded)
# The goal printed beside each ratio: the umbrella at most 1.5x the baseline, any other
# header at most 1.3x (the same goals for the precompiled lines).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs=3
pch=0
compilers=()
extra=()
while getopts "n:pc:f:" opt; do
  case "$opt" in
    n) runs="$OPTARG" ;;
    p) pch=1 ;;
    c) compilers+=("$OPTARG") ;;
    f) extra+=("$OPTARG") ;;
    *) sed -n '2,20p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ "${#compilers[@]}" -eq 0 ]; then
  compilers=(g++)
  if command -v clang++ > /dev/null; then compilers+=(clang++); fi
fi
headers=("$@")
if [ "${#headers[@]}" -eq 0 ]; then
  headers=(headroom/headroom.hpp)
  while IFS= read -r h; do
    [ "$h" = headroom/headroom.hpp ] || headers+=("$h")
  done < <(cd "$root/include" && find headroom -name '*.hpp' -not -path '*/detail/*' | LC_ALL=C sort)
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# CPU seconds (user + system) of one compile of $2 with compiler $1 (more flags after $2).
cpu_seconds() {
  local compiler="$1" source="$2" t
  shift 2
  t=$( { TIMEFORMAT='%3U %3S'; time "$compiler" -std=c++20 -O2 ${extra[@]+"${extra[@]}"} \
        -I"$root/include" "$@" -c "$source" -o "$work/out.o" > /dev/null 2> "$work/err"; } 2>&1 ) ||
    { cat "$work/err" >&2; echo "compile failed: $compiler $source" >&2; exit 1; }
  awk '{ printf "%.3f", $1 + $2 }' <<< "$t"
}

# Median of $runs compiles of $2 with $1 (more flags after $2).
median_seconds() {
  local i
  for ((i = 0; i < runs; ++i)); do cpu_seconds "$@"; echo; done |
    sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# One line of the table: name, seconds, baseline seconds, goal.
report() {
  awk -v h="$1" -v s="$2" -v b="$3" -v g="$4" 'BEGIN {
    r = s / b; printf "  %-40s %7.3f %7.2f <= %.1f %s\n", h, s, r, g, (r <= g ? "met" : "NOT met") }'
}

# Median CPU seconds of a file that includes nothing itself, compiled with header $2
# precompiled and included first, as CMake does (the precompiled header's build not timed).
precompiled_seconds() {
  local compiler="$1" header="$2" use
  rm -rf "$work/pch" && mkdir -p "$work/pch"
  printf '#include <%s>\n' "$header" > "$work/pch/pch.hxx"
  printf 'int main() { return 0; }\n' > "$work/pch_tu.cpp"
  if "$compiler" --version | grep -q clang; then
    "$compiler" -std=c++20 -O2 ${extra[@]+"${extra[@]}"} -I"$root/include" -x c++-header \
      -fpch-instantiate-templates "$work/pch/pch.hxx" -o "$work/pch/pch.pch"
    use=(-include-pch "$work/pch/pch.pch")
  else
    "$compiler" -std=c++20 -O2 ${extra[@]+"${extra[@]}"} -I"$root/include" -x c++-header \
      "$work/pch/pch.hxx" -o "$work/pch/pch.hxx.gch"
    use=(-Winvalid-pch -include "$work/pch/pch.hxx")
  fi
  median_seconds "$compiler" "$work/pch_tu.cpp" "${use[@]}"
}

printf '#include <vector>\n#include <string>\n#include <chrono>\n#include <cmath>\nint main() { return 0; }\n' \
  > "$work/baseline.cpp"

# Every standard header that include/ includes, and nothing of headroom: the floor below
# which no header that needs them all (the umbrella) can go.
{ grep -rhoE '^#include <[a-z_]+>' "$root/include" | LC_ALL=C sort -u; echo 'int main() { return 0; }'; } \
  > "$work/standard.cpp"

for compiler in "${compilers[@]}"; do
  base=$(median_seconds "$compiler" "$work/baseline.cpp")
  standard=$(median_seconds "$compiler" "$work/standard.cpp")
  echo "$compiler $("$compiler" -dumpversion)${extra[*]:+ ${extra[*]}}: -std=c++20 -O2 -c, median of $runs compiles, CPU seconds"
  printf '  %-40s %7s %7s %s\n' "file" "seconds" "ratio" "goal"
  printf '  %-40s %7.3f %7.2f\n' "baseline: vector string chrono cmath" "$base" 1
  awk -v s="$standard" -v b="$base" 'BEGIN {
    printf "  %-40s %7.3f %7.2f\n", "the standard headers headroom includes", s, s / b }'
  for h in "${headers[@]}"; do
    goal=1.3
    [ "$h" = headroom/headroom.hpp ] && goal=1.5
    printf '#include <%s>\nint main() { return 0; }\n' "$h" > "$work/tu.cpp"
    report "$h" "$(median_seconds "$compiler" "$work/tu.cpp")" "$base" "$goal"
    if [ "$pch" = 1 ]; then
      report "$h, precompiled" "$(precompiled_seconds "$compiler" "$h")" "$base" "$goal"
    fi
  done
done
