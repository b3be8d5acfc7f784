#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# `make fuzz-smoke` (fuzz stage): runs every libFuzzer target for SECONDS (default 30) on its seed corpus plus a
# working corpus, prints executions per target, and exits non-zero if any target found a crash, leak or timeout.
# Usage: fuzz/smoke.sh BUILD_FUZZ_DIR [SECONDS]   (BUILD_FUZZ_DIR: build/fuzz/fuzz, where the fuzz_* binaries are)
set -u
dir=${1:?usage: smoke.sh BUILD_FUZZ_DIR [SECONDS]}
secs=${2:-30}
targets="elf_loader verifier verifier_soundness interp_vs_jit strings"
mkdir -p "$dir/work" "$dir/findings"
failed=0
summary=""
for t in $targets; do
    mkdir -p "$dir/work/$t"
    log="$dir/work/$t.log"
    echo "== fuzz_$t: ${secs}s"
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} "$dir/fuzz_$t" -max_total_time="$secs" -timeout=25 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$dir/findings/$t-" \
        "$dir/work/$t" "$dir/corpus/$t" >"$log" 2>&1
    rc=$?
    execs=$(grep -a 'stat::number_of_executed_units' "$log" | awk '{print $2}')
    grep -a -E 'accepted \(|known open finding' "$log" | tail -n 2
    if [ $rc -ne 0 ]; then
        failed=1
        echo "!! fuzz_$t FAILED (exit $rc), log: $log"
        grep -a -E 'strbpf fuzz finding|ERROR: |SUMMARY: |Test unit written' "$log" | head -n 8
    fi
    summary+=$(printf '%-20s %10s executions  %s' "$t" "${execs:-?}" "$([ $rc -eq 0 ] && echo ok || echo FAILED)")$'\n'
done
echo "== fuzz-smoke summary"
printf '%s' "$summary"
exit $failed
