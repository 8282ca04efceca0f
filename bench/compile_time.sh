#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What including headroom costs a translation unit: the CPU time (user + system) of compiling
# a file that includes one header and nothing else, at -std=c++20 -O2, against a baseline
# file that includes <vector> <string> <chrono> <cmath>. Each header's compiles alternate
# with the baseline's (baseline, header, baseline, header, ...), and its ratio is the median
# of the ratios of those pairs, so that a machine that slows down or speeds up during the
# run moves the ratios less than the seconds; the seconds are medians too. CPU time, not
# wall time, for the same reason.
#
# Usage: bench/compile_time.sh [-n RUNS] [-m MODE] [-a] [-p] [-s] [-t] [-c COMPILER]... [-f FLAG]... [HEADER...]
#   -n RUNS      pairs of compiles per file (default 3)
#   -m MODE      header-only (default), compiled (-DHEADROOM_SEPARATE_COMPILATION: the headers
#                declare, headroom::compiled defines), or both (each header in both modes)
#   -a           every public header, not only the umbrella and the module headers
#   -p           also each header through a precompiled header of it, as CMake's
#                target_precompile_headers (and HEADROOM_PRECOMPILE) builds and uses it
#                (clang: -fpch-instantiate-templates); the build of the precompiled header is
#                not timed
#   -s           also, per header and mode (beside its line), the standard headers it
#                includes in that mode (directly or through other headroom headers) and
#                nothing else: the part of its cost that is the standard library's, below
#                which no rewrite of headroom's own code can go
#   -t           with clang++: also, per header and mode, the least it could cost if it
#                instantiated nothing: its standard headers alone (as -s) plus the parsing
#                of its own code, that is its front end's time outside template
#                instantiation and constant evaluation (from -ftime-trace) less the same for
#                its standard headers alone, against the baseline's whole front end. Above
#                the goal, no rewrite that keeps the header's code (header-only) or its
#                declarations and templates (compiled) in headers meets it.
#   -c COMPILER  a compiler to measure (repeatable; default g++, and clang++ when present)
#   -f FLAG      an extra compiler flag (repeatable), e.g. -f -stdlib=libc++
#   HEADER       headers to measure, relative to include/ (default: headroom/headroom.hpp, the
#                module headers include/headroom/*.hpp, and sim/replica.hpp and sim/fleet_day.hpp;
#                with -a every public header)
# First the peers, header-only libraries users already accept, each measured the same way
# (a peer whose Debian package is missing is skipped with a note): fmt/format.h (libfmt-dev),
# Eigen/Dense (libeigen3-dev), range/v3/all.hpp (librange-v3-dev), nlohmann/json.hpp
# (nlohmann-json3-dev), boost/asio.hpp (libboost-dev; after <utility>, which Boost 1.74's asio
# forgets).
# The goal printed beside each ratio: header-only, the umbrella at most boost/asio.hpp's ratio
# and any other header at most nlohmann/json.hpp's (both measured in the same run; no goal
# when the peer is missing); compiled, the umbrella at most 2.0 and any other header at most
# 1.5; precompiled, at most 1.0.
set -euo pipefail
shopt -s inherit_errexit  # a failure inside $(...) stops the script too

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs=3
mode=header-only
every=0
pch=0
floors=0
least=0
compilers=()
extra=()
while getopts "n:m:apstc:f:" opt; do
  case "$opt" in
    n) runs="$OPTARG" ;;
    m) mode="$OPTARG" ;;
    a) every=1 ;;
    p) pch=1 ;;
    s) floors=1 ;;
    t) least=1 ;;
    c) compilers+=("$OPTARG") ;;
    f) extra+=("$OPTARG") ;;
    *) sed -n '2,44p' "$0"; exit 2 ;;
  esac
done
case "$mode" in
  header-only) modes=(header-only) ;;
  compiled) modes=(compiled) ;;
  both) modes=(header-only compiled) ;;
  *) echo "-m: '$mode' is not header-only, compiled or both" >&2; exit 2 ;;
esac
shift $((OPTIND - 1))
if [ "${#compilers[@]}" -eq 0 ]; then
  compilers=(g++)
  if command -v clang++ > /dev/null; then compilers+=(clang++); fi
fi
headers=("$@")
if [ "${#headers[@]}" -eq 0 ]; then
  headers=(headroom/headroom.hpp)
  if [ "$every" = 1 ]; then depth=(); else depth=(-maxdepth 1); fi
  while IFS= read -r h; do
    case "$h" in headroom/headroom.hpp | headroom/src.hpp | headroom/error.hpp | headroom/version.hpp) ;;
      *) headers+=("$h") ;; esac
  done < <(cd "$root/include" && find headroom "${depth[@]}" -name '*.hpp' -not -path '*/detail/*' | LC_ALL=C sort)
  # The simulator has no header of its own at the top: its two entry points.
  [ "$every" = 1 ] || headers+=(headroom/sim/replica.hpp headroom/sim/fleet_day.hpp)
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

# The median of the numbers on standard input.
median() {
  sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# Median CPU seconds of $runs compiles of $2 with $1 (more flags after $2).
median_seconds() {
  local i
  for ((i = 0; i < runs; ++i)); do cpu_seconds "$@"; echo; done | median
}

# "SECONDS RATIO": $runs compiles of $2 with $1 (more flags after $2), each after a compile
# of the baseline; the median seconds and the median of the ratios of the pairs.
paired() {
  local i b s
  : > "$work/pairs"
  for ((i = 0; i < runs; ++i)); do
    b=$(cpu_seconds "$1" "$work/baseline.cpp")
    s=$(cpu_seconds "$@")
    echo "$s $b" >> "$work/pairs"
  done
  echo "$(awk '{ print $1 }' "$work/pairs" | median) $(awk '{ printf "%.4f\n", $1 / $2 }' "$work/pairs" | median)"
}

# One line of the table: name, "SECONDS RATIO", goal (none: no goal printed).
report() {
  awk -v h="$1" -v sr="$2" -v g="${3:-}" 'BEGIN {
    split(sr, a, " "); printf "  %-44s %7.3f %7.2f", h, a[1], a[2]
    if (g != "") printf " <= %.2f %s", g, (a[2] <= g ? "met" : "NOT met")
    printf "\n" }'
}

# Compiles a precompiled header of header $2 with $1 and prints the flags that use it, one
# per line, as CMake builds and uses one (its build is not timed).
precompile() {
  local compiler="$1" header="$2"
  shift 2
  rm -rf "$work/pch" && mkdir -p "$work/pch"
  printf '#include <%s>\n' "$header" > "$work/pch/pch.hxx"
  if "$compiler" --version | grep -q clang; then
    "$compiler" -std=c++20 -O2 ${extra[@]+"${extra[@]}"} -I"$root/include" "$@" -x c++-header \
      -fpch-instantiate-templates "$work/pch/pch.hxx" -o "$work/pch/pch.pch"
    printf '%s\n' -include-pch "$work/pch/pch.pch"
  else
    "$compiler" -std=c++20 -O2 ${extra[@]+"${extra[@]}"} -I"$root/include" "$@" -x c++-header \
      "$work/pch/pch.hxx" -o "$work/pch/pch.hxx.gch"
    printf '%s\n' -Winvalid-pch -include "$work/pch/pch.hxx"
  fi
}

# The standard headers that header $2 includes, directly or through headroom headers, as
# a file that includes them and nothing else, written to $3 (compiler $1 lists the
# dependencies; more flags after $3, such as the compiled mode's define). A headroom file
# that includes a standard header only in the other mode (an .ipp's own includes, read in
# the header-only mode alone) is not a dependency in this one, so its includes are not
# counted.
standard_floor() {
  local compiler="$1" header="$2" out="$3" deps=()
  shift 3
  printf '#include <%s>\n' "$header" > "$work/deps.cpp"
  mapfile -t deps < <("$compiler" -std=c++20 ${extra[@]+"${extra[@]}"} -I"$root/include" "$@" \
                        -MM -MT deps "$work/deps.cpp" | grep -oE "$root/include/[^ ]+\.(hpp|ipp)")
  { [ "${#deps[@]}" -eq 0 ] || grep -hoE '^#include <[a-z_]+>' "${deps[@]}" | LC_ALL=C sort -u
    echo 'int main() { return 0; }'; } > "$out"
}

# Milliseconds of clang's front end on $2 (compiler $1; more flags after $2): "TOTAL
# OUTSIDE", OUTSIDE being the part outside template instantiation and constant evaluation
# (the outermost such events of -ftime-trace, summed without their overlaps).
front_end_ms() {
  local compiler="$1" source="$2"
  shift 2
  "$compiler" -std=c++20 -O2 ${extra[@]+"${extra[@]}"} -I"$root/include" "$@" -ftime-trace \
    -ftime-trace-granularity=0 -c "$source" -o "$work/trace.o" 2> "$work/err" ||
    { cat "$work/err" >&2; echo "compile failed: $compiler $source" >&2; exit 1; }
  { grep -oE '"dur":[0-9]+,"name":"Total Frontend"' "$work/trace.json" | head -n 1
    grep -oE '"ts":[0-9]+,"dur":[0-9]+,"name":"(Instantiate(Function|Class)|PerformPendingInstantiations|EvaluateAs[A-Za-z]+)"' \
      "$work/trace.json" | tr -c '0-9\n' ' ' | sort -k1,1n -k2,2nr; } |
    awk 'NR == 1 { gsub(/[^0-9]/, "", $0); total = $0; next }
         { if ($1 >= end) { busy += $2; end = $1 + $2 } else if ($1 + $2 > end) { busy += $1 + $2 - end; end = $1 + $2 } }
         END { if (total == "") exit 1; printf "%.1f %.1f\n", total / 1000, (total - busy) / 1000 }'
}

# "SECONDS RATIO": the least file $2 could cost if it instantiated nothing (compiler $1;
# $3: its standard headers alone; more flags after $3 for $2 alone), median over $runs
# rounds of
#   seconds(standard) / seconds(baseline) + (outside(header) - outside(standard)) / front end(baseline)
# (outside: the front end outside instantiation; see front_end_ms), and the seconds alike.
uninstantiated_floor() {
  local compiler="$1" source="$2" standard="$3" i b f tb th ts
  shift 3
  : > "$work/pairs"
  for ((i = 0; i < runs; ++i)); do
    b=$(cpu_seconds "$compiler" "$work/baseline.cpp")
    f=$(cpu_seconds "$compiler" "$standard")
    tb=$(front_end_ms "$compiler" "$work/baseline.cpp")
    th=$(front_end_ms "$compiler" "$source" "$@")
    ts=$(front_end_ms "$compiler" "$standard")
    echo "$b $f ${tb% *} ${th#* } ${ts#* }" >> "$work/pairs"
  done
  echo "$(awk '{ printf "%.3f\n", $2 + ($4 - $5) / 1000 }' "$work/pairs" | median) $(awk '{ printf "%.4f\n", $2 / $1 + ($4 - $5) / $3 }' "$work/pairs" | median)"
}

printf '#include <vector>\n#include <string>\n#include <chrono>\n#include <cmath>\nint main() { return 0; }\n' \
  > "$work/baseline.cpp"
printf 'int main() { return 0; }\n' > "$work/empty.cpp"

# Every standard header that include/ includes, and nothing of headroom: the floor below
# which no header that needs them all (the umbrella) can go.
{ grep -rhoE '^#include <[a-z_]+>' "$root/include" | LC_ALL=C sort -u; echo 'int main() { return 0; }'; } \
  > "$work/standard.cpp"

# Each measurement goes to a variable before it is reported: a failed one stops the script
# there (set -e does not look inside an argument's $(...)).
for compiler in "${compilers[@]}"; do
  echo "$compiler $("$compiler" -dumpversion)${extra[*]:+ ${extra[*]}}: -std=c++20 -O2 -c, $runs compiles per file, each after one of the baseline; CPU seconds (median) and ratio to the baseline (median of the pairs)"
  printf '  %-44s %7s %7s %s\n' "file" "seconds" "ratio" "goal"
  m=$(median_seconds "$compiler" "$work/baseline.cpp")
  printf '  %-44s %7.3f %7.2f\n' "baseline: vector string chrono cmath" "$m" 1
  m=$(paired "$compiler" "$work/standard.cpp")
  report "the standard headers headroom includes" "$m"
  json_ratio="" asio_ratio=""
  for peer in "fmt/format.h" "Eigen/Dense -I/usr/include/eigen3" "range/v3/all.hpp" \
              "nlohmann/json.hpp" "boost/asio.hpp"; do
    read -r ph pflag <<< "$peer"
    # Boost 1.74's asio uses std::exchange without including <utility> (the baseline's
    # <vector> brings it in anyway), which g++ 12 refuses in C++20: included first.
    { [ "$ph" != boost/asio.hpp ] || echo '#include <utility>'
      printf '#include <%s>\nint main() { return 0; }\n' "$ph"; } > "$work/peer.cpp"
    if ! "$compiler" -std=c++20 ${extra[@]+"${extra[@]}"} ${pflag:+"$pflag"} -fsyntax-only \
         "$work/peer.cpp" 2> /dev/null; then
      printf '  %-44s skipped: not found (install its Debian package)\n' "peer: $ph"
      continue
    fi
    m=$(paired "$compiler" "$work/peer.cpp" ${pflag:+"$pflag"})
    report "peer: $ph" "$m"
    [ "$ph" = nlohmann/json.hpp ] && json_ratio=${m#* }
    [ "$ph" = boost/asio.hpp ] && asio_ratio=${m#* }
  done
  for h in "${headers[@]}"; do
   for md in "${modes[@]}"; do
    defines=()
    label="$h"
    if [ "$md" = compiled ]; then
      defines=(-DHEADROOM_SEPARATE_COMPILATION)
      label="$h, compiled"
      goal=1.5
      [ "$h" = headroom/headroom.hpp ] && goal=2.0
    else
      goal=$json_ratio
      [ "$h" = headroom/headroom.hpp ] && goal=$asio_ratio
    fi
    printf '#include <%s>\nint main() { return 0; }\n' "$h" > "$work/tu.cpp"
    m=$(paired "$compiler" "$work/tu.cpp" ${defines[@]+"${defines[@]}"})
    report "$label" "$m" "$goal"
    # Both floors in each mode, with the standard headers that mode includes.
    if [ "$floors" = 1 ] || [ "$least" = 1 ]; then
      standard_floor "$compiler" "$h" "$work/floor.cpp" ${defines[@]+"${defines[@]}"}
    fi
    if [ "$floors" = 1 ]; then
      m=$(paired "$compiler" "$work/floor.cpp")
      report "  its standard headers alone" "$m" "$goal"
    fi
    if [ "$least" = 1 ] && "$compiler" --version | grep -q clang; then
      m=$(uninstantiated_floor "$compiler" "$work/tu.cpp" "$work/floor.cpp" ${defines[@]+"${defines[@]}"})
      report "  least cost, nothing instantiated" "$m" "$goal"
    fi
    if [ "$pch" = 1 ]; then
      precompile "$compiler" "$h" ${defines[@]+"${defines[@]}"} > "$work/use"
      mapfile -t use < "$work/use"
      m=$(paired "$compiler" "$work/empty.cpp" ${defines[@]+"${defines[@]}"} "${use[@]}")
      report "$label, precompiled" "$m" 1.0
    fi
   done
  done
done
