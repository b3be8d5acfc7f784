#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The public bpf_conformance suite (Alan-Jowett/bpf_conformance) run by its own runner on strbpf's interpreter and
# JIT through scripts/bpf-conformance-plugin (scripts). Needs a local copy of the suite with its external/elfio
# submodule (git clone --recursive), cmake, a C++20 compiler and Boost's program_options and filesystem
# development files (Debian: libboost-program-options-dev libboost-filesystem-dev).
#
#   scripts/bpf-conformance.sh SUITE_DIR [--cpu v4] [--engines interp,jit] [--groups 'callx packet']
#                                        [--strbpf PATH] [--build DIR]
#
# --groups adds the runner's optional conformance groups (--include_groups; callx and packet are off by default).
# Builds bpf_conformance_runner into DIR (default SUITE_DIR/build-strbpf; reused when present), runs it on
# SUITE_DIR/tests once per engine, prints each engine's FAIL/ERROR lines and the runner's "Passed N out of M
# tests." line, and ends with `bpf-conformance: ENGINE N/M ...`. Exit status: 0 every test passed on every engine,
# 1 some test failed, 2 a usage or build error.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
usage() {
    echo "usage: $0 SUITE_DIR [--cpu v1|v2|v3|v4] [--engines interp,jit] [--groups 'G...'] [--strbpf PATH] [--build DIR]" >&2
    exit 2
}
[ $# -ge 1 ] || usage
suite=$1; shift
cpu=v4; engines=interp,jit; groups=; strbpf=${STRBPF:-$here/../build/release/tools/strbpf/strbpf}; build=
while [ $# -gt 0 ]; do
    case $1 in
    --cpu) cpu=$2; shift 2 ;;
    --engines) engines=$2; shift 2 ;;
    --groups) groups=$2; shift 2 ;;
    --strbpf) strbpf=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    *) usage ;;
    esac
done
[ -n "$build" ] || build=$suite/build-strbpf
if [ ! -d "$suite/tests" ] || [ ! -f "$suite/tools/runner.cc" ]; then
    echo "bpf-conformance: error: $suite is not a copy of the bpf_conformance repository" >&2; exit 2
fi
if [ ! -f "$suite/external/elfio/CMakeLists.txt" ]; then
    echo "bpf-conformance: error: $suite/external/elfio is empty (git submodule update --init)" >&2; exit 2
fi
[ -x "$strbpf" ] || { echo "bpf-conformance: error: no strbpf at $strbpf (make build, or --strbpf)" >&2; exit 2; }
runner=$build/bin/bpf_conformance_runner
if [ ! -x "$runner" ]; then
    echo "== building bpf_conformance_runner in $build"
    if ! { cmake -S "$suite" -B "$build" -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=Release >"$build.log" 2>&1 &&
           cmake --build "$build" --target bpf_conformance_runner -j "${JOBS:-2}" >>"$build.log" 2>&1; }; then
        tail -20 "$build.log" >&2
        echo "bpf-conformance: error: building the runner failed (log: $build.log)" >&2; exit 2
    fi
fi
summary=; rc=0
for engine in $(echo "$engines" | tr ',' ' '); do
    echo "== $engine, cpu $cpu: $(git -C "$suite" rev-parse --short HEAD 2>/dev/null || echo "suite") tests/"
    # shellcheck disable=SC2086 # the group names are words
    out=$(STRBPF=$strbpf "$runner" --test_file_directory "$suite/tests" --cpu_version "$cpu" \
        ${groups:+--include_groups $groups} \
        --plugin_path "$here/bpf-conformance-plugin" --plugin_options "--engine $engine" 2>&1) || rc=1
    printf '%s\n' "$out" | grep -E '^(FAIL|ERROR|UNKNOWN):' || true
    line=$(printf '%s\n' "$out" | grep -E '^Passed [0-9]+ out of [0-9]+ tests\.$' || true)
    [ -n "$line" ] || { printf '%s\n' "$out" | tail -5 >&2; echo "bpf-conformance: error: no summary from the runner" >&2; exit 2; }
    echo "$line"
    summary="$summary $engine $(echo "$line" | awk '{print $2 "/" $5}')"
done
echo "bpf-conformance:$summary (cpu $cpu${groups:+, groups $groups})"
exit $rc
