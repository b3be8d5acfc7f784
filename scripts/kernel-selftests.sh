#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# make kernel-selftests: compiles the kernel's own verifier selftests (progs/verifier_*.c of Debian's
# linux-source-6.12) as that tree's selftests Makefile does, runs them with `strbpf test --json` on interp, jit
# and the live kernel, and writes build/kernel-selftests/report.md (scripts/kernel_selftests_report.py).
# Nothing of the kernel tree is committed (GPL-2.0): it is extracted at run time into build/kernel-selftests/.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: scripts/kernel-selftests.sh [--files GLOB] [--engines LIST] [--jobs N] [--strbpf PATH] [--out DIR]
  --files GLOB     only progs/GLOB.c, e.g. 'verifier_and*' (default 'verifier_*'; comma-separated globs allowed)
  --engines LIST   strbpf engines, comma-separated (default interp,jit,kernel; kernel is dropped without bpf())
  --jobs N         parallel compiles and strbpf runs (default 2)
  --strbpf PATH    the strbpf CLI with `test --json` (default $STRBPF or build/release/tools/strbpf/strbpf)
  --out DIR        work directory (default build/kernel-selftests)
Environment: STRBPF, KSELFTEST_TIMEOUT (seconds per object's strbpf run, default 900), VMLINUX_BTF (the BTF
vmlinux.h is dumped from, default /sys/kernel/btf/vmlinux, as in the selftests Makefile).
EOF
}

ROOT=$(cd "$(dirname "$0")/.." && pwd)
FILES="verifier_*"
ENGINES="interp,jit,kernel"
JOBS=2
STRBPF=${STRBPF:-$ROOT/build/release/tools/strbpf/strbpf}
OUT=$ROOT/build/kernel-selftests
TIMEOUT=${KSELFTEST_TIMEOUT:-900}
VMLINUX_BTF=${VMLINUX_BTF:-/sys/kernel/btf/vmlinux}
while [ $# -gt 0 ]; do
    case $1 in
    --files) FILES=$2; shift 2 ;;
    --engines) ENGINES=$2; shift 2 ;;
    --jobs|-j) JOBS=$2; shift 2 ;;
    --strbpf) STRBPF=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "kernel-selftests: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done

KVER=6.12
TARBALL=/usr/src/linux-source-$KVER.tar.xz
CLANG=clang-19
SRC=$OUT/src                 # the extracted part of the kernel tree
TOOLS=$OUT/tools             # libbpf headers (include/), vmlinux.h, bpftool (sbin/), their build dirs
OBJS=$OUT/objs               # verifier_*.bpf.o and per-file compile logs
RESULTS=$OUT/results         # per-object JSON Lines from strbpf test --json
SELFTESTS=$SRC/tools/testing/selftests/bpf
# What the build needs of the tree: selftests headers and progs, libbpf (bpf_helper_defs.h is generated from
# tools/include/uapi/linux/bpf.h by scripts/bpf_doc.py), bpftool (which also compiles kernel/bpf/disasm.c) and
# the tools build system.
MEMBERS="tools/testing/selftests/bpf tools/lib/bpf tools/include tools/arch/x86/include tools/bpf/bpftool
tools/build tools/scripts scripts/bpf_doc.py kernel/bpf/disasm.c kernel/bpf/disasm.h"

say() { echo "kernel-selftests: [${SECONDS}s] $*"; }
die() { echo "kernel-selftests: error: $*" >&2; exit 1; }

install_deps() {
    local pkgs="linux-source-$KVER $CLANG libc6-dev-i386 libelf-dev zlib1g-dev libcap-dev pkg-config python3 make gcc
xz-utils" missing="" p
    for p in $pkgs; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    say "installing$missing"
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq || true
    # shellcheck disable=SC2086
    $sudo apt-get install -y -qq --no-install-recommends $missing || die "apt-get install$missing failed"
}

extract_tree() {
    local stamp=$SRC/.extracted
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$TARBALL $MEMBERS" ]; then
        say "reusing the extraction in $SRC"
        return 0
    fi
    [ -f "$TARBALL" ] || die "$TARBALL is missing (apt-get install linux-source-$KVER)"
    say "extracting $(echo "$MEMBERS" | wc -w) paths of $TARBALL into $SRC (about a minute)"
    rm -rf "$SRC"
    mkdir -p "$SRC"
    local m args=()
    for m in $MEMBERS; do args+=("linux-source-$KVER/$m"); done
    tar -xJf "$TARBALL" -C "$SRC" --strip-components=1 "${args[@]}" || die "extracting $TARBALL failed"
    echo "$TARBALL $MEMBERS" >"$stamp"
}

# libbpf's headers and bpftool, as the selftests Makefile's $(BPFOBJ) and $(DEFAULT_BPFTOOL) rules build them.
build_tools() {
    local log=$TOOLS/build.log
    mkdir -p "$TOOLS/build/libbpf" "$TOOLS/build/bpftool"
    : >"$log"
    if [ ! -f "$TOOLS/include/bpf/bpf_helper_defs.h" ]; then
        say "building libbpf and its headers (a few minutes)"
        make -s -j"$JOBS" -C "$SRC/tools/lib/bpf" OUTPUT="$TOOLS/build/libbpf/" DESTDIR="$TOOLS" prefix= \
            all install_headers >>"$log" 2>&1 || { tail -20 "$log" >&2; die "building libbpf failed (see $log)"; }
    fi
    if [ ! -x "$TOOLS/sbin/bpftool" ]; then
        say "building bpftool"
        make -s -j"$JOBS" -C "$SRC/tools/bpf/bpftool" ARCH= CROSS_COMPILE= CLANG="$CLANG" \
            OUTPUT="$TOOLS/build/bpftool/" LIBBPF_OUTPUT="$TOOLS/build/libbpf/" LIBBPF_DESTDIR="$TOOLS/" \
            prefix= DESTDIR="$TOOLS/" install-bin >>"$log" 2>&1 ||
            { tail -20 "$log" >&2; die "building bpftool failed (see $log)"; }
    fi
}

# vmlinux.h of the running kernel; rewritten only when it changes, so objects are not recompiled needlessly.
gen_vmlinux_h() {
    local btf=$VMLINUX_BTF
    [ -r "$btf" ] || die "$btf is missing: the running kernel has no BTF (CONFIG_DEBUG_INFO_BTF), so there is" \
        "no vmlinux.h to compile the selftests against"
    "$TOOLS/sbin/bpftool" btf dump file "$btf" format c >"$TOOLS/include/.vmlinux.h.tmp" ||
        die "bpftool btf dump file $btf format c failed"
    if cmp -s "$TOOLS/include/.vmlinux.h.tmp" "$TOOLS/include/vmlinux.h"; then
        rm -f "$TOOLS/include/.vmlinux.h.tmp"
    else
        mv "$TOOLS/include/.vmlinux.h.tmp" "$TOOLS/include/vmlinux.h"
        say "generated vmlinux.h of $(uname -r)"
    fi
}

# The selftests Makefile's test_progs flavour: BPF_CFLAGS + CLANG_CFLAGS + -DENABLE_ATOMICS_TESTS, built by
# CLANG_BPF_BUILD_RULE (-O2 --target=bpf -mcpu=v3); CLANG_SYS_INCLUDES is clang's own search list as -idirafter.
compile_flags() {
    local sys
    sys=$($CLANG -v -E - </dev/null 2>&1 |
        sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
    echo "-g -Wall -Werror -D__TARGET_ARCH_x86 -mlittle-endian -I$TOOLS/include -I$SELFTESTS" \
        "-I$SRC/tools/include/uapi -I$OUT/usr/include -Wno-compare-distinct-pointer-types $sys" \
        "-DENABLE_ATOMICS_TESTS -O2 --target=bpf -mcpu=v3"
}

# Prints the names (no .c) of the selected progs/*.c files, one a line.
select_files() {
    local glob f
    (
        cd "$SELFTESTS/progs"
        IFS=,
        for glob in $FILES; do
            glob=${glob//[[:space:]]/} # a list wrapped over lines, as docs/testing.md prints it
            [ -n "$glob" ] || continue
            for f in ${glob%.c}.c; do
                if [ -f "$f" ]; then echo "${f%.c}"; fi
            done
        done
    ) | sort -u
}

# One clang per file. A file that fails leaves NAME.err (its diagnostics) instead of NAME.bpf.o. 6.12's headers
# declare some kfuncs (bpf_lookup_user_key, bpf_path_d_path) with other types than a newer kernel's BTF, whose
# vmlinux.h declares every kfunc; such a file ("conflicting types for") is compiled again with
# -DBPF_NO_KFUNC_PROTOTYPES (as 6.12's own verifier_arena.c sets), and NAME.note says so.
compile_one() {
    local name=$1 flags=$2 src=$SELFTESTS/progs/$1.c obj=$OBJS/$1.bpf.o
    if [ -f "$obj" ] && [ "$obj" -nt "$src" ] && [ "$obj" -nt "$TOOLS/include/vmlinux.h" ]; then return 0; fi
    rm -f "$obj" "$OBJS/$name.err" "$OBJS/$name.note"
    # shellcheck disable=SC2086
    $CLANG $flags -c "$src" -o "$obj" 2>"$OBJS/$name.err" && { rm -f "$OBJS/$name.err"; return 0; }
    # shellcheck disable=SC2086
    if grep -q 'error: conflicting types for' "$OBJS/$name.err" &&
        $CLANG $flags -DBPF_NO_KFUNC_PROTOTYPES -c "$src" -o "$obj" 2>"$OBJS/$name.err2"; then
        echo "compiled with -DBPF_NO_KFUNC_PROTOTYPES: $(grep -m1 'error: conflicting types for' \
            "$OBJS/$name.err" | sed 's/.*error: //')" >"$OBJS/$name.note"
        rm -f "$OBJS/$name.err" "$OBJS/$name.err2"
        return 0
    fi
    if [ -f "$OBJS/$name.err2" ]; then   # the retry's diagnostics are the ones that matter now
        echo "also failed with -DBPF_NO_KFUNC_PROTOTYPES" >"$OBJS/$name.note"
        mv "$OBJS/$name.err2" "$OBJS/$name.err"
    fi
    rm -f "$obj"
}

compile_all() {
    local flags names
    flags=$(compile_flags)
    names=$(select_files)
    [ -n "$names" ] || die "no progs/ file matches --files '$FILES'"
    mkdir -p "$OBJS"
    # Objects are reused while newer than their source and vmlinux.h, and while the flags are the same.
    if [ "$(cat "$OBJS/.flags" 2>/dev/null)" != "$flags" ]; then
        rm -f "$OBJS"/*.bpf.o "$OBJS"/*.err "$OBJS"/*.note
        echo "$flags" >"$OBJS/.flags"
    fi
    say "compiling $(echo "$names" | wc -l) files with $CLANG -j$JOBS"
    export -f compile_one
    export CLANG SELFTESTS OBJS TOOLS
    # shellcheck disable=SC2016  # $1 and $2 are the inner shell's
    echo "$names" | xargs -P "$JOBS" -I{} bash -c 'compile_one "$1" "$2"' _ {} "$flags"
    compile_btf_targets "$names" "$flags"
}

# The target BTF files the selected tests name with __btf_path("X.bpf.o") (CO-RE relocations resolved against
# another object's BTF, as test_progs runs them from its output directory): X.c of progs/ compiled beside the
# objects, which run from that directory.
compile_btf_targets() {
    local names=$1 flags=$2 targets t
    targets=$(cd "$SELFTESTS/progs" && for n in $names; do
        grep -ho '__btf_path("[^"]*\.bpf\.o")' "$n.c" 2>/dev/null || true; done |
        sed 's/__btf_path("\(.*\)\.bpf\.o")/\1/' | sort -u)
    for t in $targets; do
        [ -f "$SELFTESTS/progs/$t.c" ] || continue
        compile_one "$t" "$flags"
        [ -f "$OBJS/$t.err" ] && echo "kernel-selftests: target BTF $t.bpf.o did not compile" >&2
        rm -f "$OBJS/$t.err"
    done
}

# bpf() through bpftool: listing programs needs the same privilege as loading them. Prints why not.
kernel_probe() {
    local err
    if err=$("$TOOLS/sbin/bpftool" prog show 2>&1 >/dev/null); then return 0; fi
    echo "bpf() is not available here: bpftool prog show: ${err:-failed}" | head -n1
    return 1
}

run_all() {
    local engines=$ENGINES names
    local why=""
    if [[ ",$engines," == *,kernel,* ]]; then why=$(kernel_probe) || true; fi
    if [ -n "$why" ]; then
        say "$why: reporting strbpf's side only"
        engines=$(echo ",$engines," | sed 's/,kernel,/,/; s/^,//; s/,$//')
        echo "$why" >"$OUT/kernel-unavailable"
    else
        rm -f "$OUT/kernel-unavailable"
    fi
    rm -rf "$RESULTS"
    mkdir -p "$RESULTS"
    names=$(select_files)
    say "running strbpf test --json --engine $engines on $(echo "$names" | wc -l) objects, -j$JOBS"
    # Each object: NAME.jsonl (its records), NAME.stderr, NAME.rc. strbpf exits 1 when a test FAILs; that is data.
    # shellcheck disable=SC2016  # $1..$5 are the inner shell's
    # From the objects' directory, where a test's __btf_path finds its target BTF.
    echo "$names" | xargs -P "$JOBS" -I{} sh -c '
        cd "$2" || exit 0
        [ -f {}.bpf.o ] || exit 0
        timeout "$5" "$1" test --json --engine "$4" {}.bpf.o >"$3/{}.jsonl" 2>"$3/{}.stderr"
        echo $? >"$3/{}.rc"' _ "$(realpath "$STRBPF")" "$OBJS" "$(realpath "$RESULTS")" "$engines" "$TIMEOUT"
}

# objects.tsv: one line per selected file: name, status (ok | compile-failed | run-failed), detail.
write_manifest() {
    local name rc detail
    : >"$OUT/objects.tsv"
    for name in $(select_files); do
        if [ -f "$OBJS/$name.err" ]; then
            detail=$(grep -m1 -E 'error:' "$OBJS/$name.err" | sed "s|$SRC/||g" | tr '\t' ' ')
            [ -f "$OBJS/$name.note" ] && detail="$detail ($(cat "$OBJS/$name.note"))"
            printf '%s\tcompile-failed\t%s\n' "$name" "${detail:-clang failed}" >>"$OUT/objects.tsv"
            continue
        fi
        rc=$(cat "$RESULTS/$name.rc" 2>/dev/null || echo none)
        if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then
            printf '%s\tok\t%s\n' "$name" "$(cat "$OBJS/$name.note" 2>/dev/null)" >>"$OUT/objects.tsv"
        else
            detail=$(tail -n1 "$RESULTS/$name.stderr" 2>/dev/null | tr '\t' ' ')
            [ "$rc" = 124 ] && detail="timed out after ${TIMEOUT}s"
            printf '%s\trun-failed\texit %s: %s\n' "$name" "$rc" "$detail" >>"$OUT/objects.tsv"
        fi
    done
}

main() {
    local t0=$SECONDS
    install_deps
    command -v python3 >/dev/null || die "python3 is missing"
    [ -x "$STRBPF" ] || die "$STRBPF is not an executable (make build, or set STRBPF=)"
    "$STRBPF" test --help 2>&1 | grep -q -- '--json' ||
        die "$STRBPF test has no --json (it comes with issue 13 item 2; set STRBPF= to a binary that has it)"
    mkdir -p "$OUT"
    extract_tree
    build_tools
    gen_vmlinux_h
    compile_all
    run_all
    write_manifest
    local kflag=()
    [ -f "$OUT/kernel-unavailable" ] && kflag=(--kernel-unavailable "$(cat "$OUT/kernel-unavailable")")
    python3 "$ROOT/scripts/kernel_selftests_report.py" --results "$RESULTS" --manifest "$OUT/objects.tsv" \
        --out "$OUT/report.md" --title "Linux $KVER selftests on $(uname -r), $CLANG -mcpu=v3" \
        --elapsed $((SECONDS - t0)) "${kflag[@]}"
}

main
