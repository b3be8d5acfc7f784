#!/bin/sh
# `make demo`: runs the example programs on strbpf's interpreter and, where bpf() works, in the live kernel,
# and prints their results side by side. (The bench issue turns this into the benchmark table.)
set -eu
cd "$(dirname "$0")/.."
CLI=build/release/strbpf
OBJ=build/release/examples/strings.bpf.o
line='GET /index.html HTTP/1.1'
ctx=$(printf '%s' "$line" | od -An -tx1 -v | tr -d ' \n')
while [ ${#ctx} -lt 128 ]; do ctx="${ctx}00"; done
echo "== strbpf run $OBJ --ctx-hex <\"$line\" padded to 64 bytes>"
for engine in interp kernel; do
    echo "-- engine: $engine"
    if ! "$CLI" run "$OBJ" --engine "$engine" --ctx-hex "$ctx" --repeat 1000; then
        rc=$?
        [ "$engine" = kernel ] && [ $rc -eq 2 ] && echo "(kernel engine unavailable here: skipped)" && continue
        exit $rc
    fi
done
echo
echo "== strbpf test on the core and string test programs (interp and kernel)"
"$CLI" test build/release/tests/progs/core_*.bpf.o build/release/tests/progs/string_kfuncs_success.bpf.o | tail -n 3
