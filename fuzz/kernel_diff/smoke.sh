#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The ctest kernel_diff_smoke: 200 programs through strbpf_kernel_diff must give a summary of 200 executions.
# Usage: smoke.sh STRBPF_KERNEL_DIFF OUT_DIR. Exit 77 (skipped) when the live kernel cannot be the oracle.
set -u
bin=${1:?usage: smoke.sh STRBPF_KERNEL_DIFF OUT_DIR}
out=${2:?usage: smoke.sh STRBPF_KERNEL_DIFF OUT_DIR}
rm -rf "$out"
"$bin" --execs 200 --seed 1 --out "$out" >"$out.log" 2>&1 || { cat "$out.log"; exit 1; }
if grep -q 'skipped' "$out.log"; then cat "$out.log"; exit 77; fi
grep -q '^- executions: 200 ' "$out/summary.md" || { cat "$out.log" "$out/summary.md"; exit 1; }
grep '^- \*\*[SK]\*\*\|^- verdicts agree' "$out/summary.md"
