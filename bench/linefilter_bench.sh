#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The line filter's throughput beside grep -F and a hand-written C filter (bench/linefilter_baseline.c), on a log
# generated here (not kept): every tool writes the lines holding NEEDLE to a file (not /dev/null, where GNU grep
# stops at the first match); the best of RUNS wall-clock times is reported per tool, with its MB/s and its time
# relative to grep -F.
#   bench/linefilter_bench.sh [--build DIR] [--mb N] [--runs N] [--needle TEXT] [--work DIR]
# DIR (default build/release) is a configured, built tree: it is installed into WORK/prefix and
# examples/linefilter is built against that installed copy, as an embedder would build it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/release mb=200 runs=5 needle=ERROR work=${TMPDIR:-/tmp}/strbpf-linefilter-bench
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=$2; shift 2 ;;
    --mb) mb=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --needle) needle=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) echo "usage: $0 [--build DIR] [--mb N] [--runs N] [--needle TEXT] [--work DIR]" >&2; exit 2 ;;
    esac
done
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$root/examples/linefilter" -B "$work/linefilter" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/linefilter" >/dev/null
cc -O2 -o "$work/baseline" "$root/bench/linefilter_baseline.c"
log=$work/log.txt
"$work/baseline" gen $((mb * 1000000)) >"$log"
bytes=$(stat -c %s "$log")
lines=$(wc -l <"$log")

# best TOOL CMD...: the fastest of $runs runs, in seconds; also checks that every tool selects the same lines.
declare -A secs
want=$(LC_ALL=C grep -cF -- "$needle" "$log")
best() {
    local name=$1 b= t0 t1 got
    shift
    got=$("$@" | wc -l)
    if [ "$got" != "$want" ]; then
        echo "$name selected $got lines, grep -F $want" >&2
        exit 1
    fi
    for _ in $(seq "$runs"); do
        t0=$(date +%s%N)
        "$@" >"$work/out.txt"
        t1=$(date +%s%N)
        if [ -z "$b" ] || [ $((t1 - t0)) -lt "$b" ]; then b=$((t1 - t0)); fi
    done
    secs[$name]=$b
}
grep_f() { LC_ALL=C grep -F -- "$needle" "$log"; }
best "grep -F" grep_f
best "C filter (strstr)" "$work/baseline" grep "$needle" "$log"
best "strbpf-grep jit" "$work/linefilter/strbpf-grep" -s "needle=$needle" "$work/linefilter/substring.bpf.o" "$log"
best "strbpf-grep interp" "$work/linefilter/strbpf-grep" --engine interp -s "needle=$needle" \
    "$work/linefilter/substring.bpf.o" "$log"

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "log: $bytes bytes, $lines lines, $want holding '$needle'; CPU: $cpu; best of $runs"
printf '%-22s %10s %10s %12s\n' tool seconds MB/s "vs grep -F"
for name in "grep -F" "C filter (strstr)" "strbpf-grep jit" "strbpf-grep interp"; do
    ns=${secs[$name]}
    awk -v n="$name" -v ns="$ns" -v b="$bytes" -v g="${secs["grep -F"]}" \
        'BEGIN { printf "%-22s %10.3f %10.0f %11.2fx\n", n, ns / 1e9, b / (ns / 1e9) / 1e6, ns / g }'
done
