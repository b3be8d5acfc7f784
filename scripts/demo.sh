#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# `make demo` (after `make build`): a short `strbpf bench strncmp` — the kernel's bpf_strncmp benchmark — on
# strbpf's JIT and, where bpf() works, in the live kernel, next to glibc. Prints the kernel-style lines and the
# ns-per-operation table with the ratios, and writes bench.svg (ns per operation against length, log-log).
# About a minute: 8 lengths x (2 programs x 2 engines + glibc), 0.25 s warm-up + 1 s each.
set -eu
cd "$(dirname "$0")/.."
CLI=${STRBPF_CLI:-build/release/strbpf}
[ -x "$CLI" ] || CLI=build/release/tools/strbpf/strbpf
OUT=${DEMO_PLOT:-bench.svg}
engines=jit,kernel
if ! "$CLI" bench trigger --engine kernel -w 0 -d 0.05 -q --json >/dev/null 2>&1 ||
    ! "$CLI" bench trigger --engine kernel -w 0 -d 0.05 -q --json 2>/dev/null | grep -q kernel; then
    echo "(the kernel engine is unavailable here — bpf() needs root or CAP_BPF — so the demo runs the JIT only)"
    engines=jit
fi
echo "== $CLI bench strncmp --engine $engines -w 0.25 -d 1 --plot $OUT"
"$CLI" bench strncmp --engine "$engines" -w 0.25 -d 1 --plot "$OUT"
echo
echo "Full run (about 4 minutes, the README's table): $CLI bench strncmp -w 1 -d 2 --plot docs/bench.svg"
