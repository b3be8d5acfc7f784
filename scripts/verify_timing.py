#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Verification time side by side: strbpf's verifier and the live kernel's, per BPF object.

For every object in --objs (the kernel selftests' objects that scripts/kernel-selftests.sh compiled into
OUT/objs, or any directory of .bpf.o files), runs `strbpf verify OBJ --json --log-level 4` on strbpf's verifier
and on the kernel's (`--engine kernel`: libbpf loads each program through bpf(BPF_PROG_LOAD)), REPEAT times, and
keeps the fastest run of each. Per object it prints three sums over the object's programs:
  strbpf     the `verification time` strbpf's log reports for each program (its walk, rewrite and checks; the
             object's first program also pays for reading kernel BTF once per process when it needs it)
  kernel     the `verification time` the kernel's log reports (bpf_check alone)
  load       the kernel's whole load of each program as libbpf times it (`seconds`: maps, BTF, bpf_check, JIT)
and the ratios kernel/strbpf and load/strbpf (above 1: strbpf is faster). Programs only one side judged are
left out of both sums. Needs root and bpf(); run it on a quiet machine.

With --clock cpu it compares CPU time instead, which a busy machine does not inflate the way it inflates wall
time: per object, the user + system seconds of the whole `strbpf verify OBJ` process on each side (the child's
rusage; the kernel's bpf_check and JIT run in that process's system time), beside the same columns' meaning:
  strbpf     the process that verifies every program with strbpf's verifier
  load       the process that loads every program into the kernel through libbpf
Both processes read the object with strbpf's loader first, so that cost is on both sides; an object that
does not load (exit status 2) is left out.
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import sys

VTIME = re.compile(r"verification time (\d+) usec")


def verify(strbpf, obj, engine):
    """{prog: (verification seconds from the log, whole seconds)} of one run."""
    cmd = [strbpf, "verify", str(obj), "--json", "--log-level", "4", "--engine", engine]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600).stdout
    progs = {}
    for line in out.splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        m = VTIME.search(rec.get("log", ""))
        if "prog" in rec and m:
            progs[rec["prog"]] = (int(m.group(1)) / 1e6, float(rec.get("seconds", 0.0)))
    return progs


def cpu_seconds(strbpf, obj, engine):
    """User + system seconds of one `strbpf verify OBJ` process (its rusage), or None when it judged nothing (exit
    status 2: the object did not load, so neither side verified a program)."""
    cmd = [strbpf, "verify", str(obj), "--engine", engine]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped by wait4
    return None if proc.returncode not in (0, 1) else usage.ru_utime + usage.ru_stime


def cpu_table(args, objs):
    print("| object | strbpf CPU ms | load CPU ms | load/strbpf |")
    print("|---|---:|---:|---:|")
    tot = [0.0, 0.0]
    slower = []
    compared = 0
    for obj in objs:
        mine = [cpu_seconds(args.strbpf, obj, "strbpf") for _ in range(args.repeat)]
        kern = [cpu_seconds(args.strbpf, obj, "kernel") for _ in range(args.repeat)]
        if None in mine or None in kern:
            continue
        s, load = min(mine), min(kern)
        compared += 1
        tot = [tot[0] + s, tot[1] + load]
        if load < s:
            slower.append(obj.name)
        print(f"| {obj.name} | {s * 1e3:.1f} | {load * 1e3:.1f} | {ratio(load, s)} |")
    print(f"| **total** | {tot[0] * 1e3:.1f} | {tot[1] * 1e3:.1f} | {ratio(tot[1], tot[0])} |")
    print()
    print(f"verify-timing (CPU): {compared} objects, strbpf {tot[0] * 1e3:.1f} ms, kernel load {tot[1] * 1e3:.1f} ms; "
          f"strbpf slower than the kernel's load on {len(slower)}" + (f": {', '.join(slower)}" if slower else ""))


def fastest(strbpf, obj, engine, repeat):
    best = {}
    for _ in range(repeat):
        for prog, (v, s) in verify(strbpf, obj, engine).items():
            old = best.get(prog)
            best[prog] = (min(v, old[0]), min(s, old[1])) if old else (v, s)
    return best


def ratio(a, b):
    return f"{a / b:.1f}×" if b > 0 else "–"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strbpf", required=True, help="the strbpf binary")
    ap.add_argument("--objs", required=True, help="directory of BPF objects (*.o)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per object and engine; the fastest is kept")
    ap.add_argument("--files", help="comma-separated object names (without .bpf.o) to time, default all")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall: the verification times the logs report (default); cpu: each whole process's CPU time")
    args = ap.parse_args()
    objs = sorted(pathlib.Path(args.objs).glob("*.o"))
    if args.files:
        want = set(args.files.split(","))
        objs = [o for o in objs if o.name.split(".")[0] in want]
    if not objs:
        sys.exit(f"verify_timing: no objects in {args.objs}")
    if args.clock == "cpu":
        cpu_table(args, objs)
        return
    print("| object | programs | strbpf ms | kernel ms | load ms | kernel/strbpf | load/strbpf |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    tot = [0.0, 0.0, 0.0]
    slower = []
    for obj in objs:
        mine = fastest(args.strbpf, obj, "strbpf", args.repeat)
        kern = fastest(args.strbpf, obj, "kernel", args.repeat)
        both = sorted(set(mine) & set(kern))
        if not both:
            continue
        s = sum(mine[p][0] for p in both)
        k = sum(kern[p][0] for p in both)
        load = sum(kern[p][1] for p in both)
        tot = [tot[0] + s, tot[1] + k, tot[2] + load]
        if load < s:
            slower.append(obj.name)
        print(f"| {obj.name} | {len(both)} | {s * 1e3:.2f} | {k * 1e3:.2f} | {load * 1e3:.2f} | {ratio(k, s)} | "
              f"{ratio(load, s)} |")
    print(f"| **total** | | {tot[0] * 1e3:.1f} | {tot[1] * 1e3:.1f} | {tot[2] * 1e3:.1f} | {ratio(tot[1], tot[0])} | "
          f"{ratio(tot[2], tot[0])} |")
    print()
    print(f"verify-timing: {len(objs)} objects, strbpf {tot[0] * 1e3:.1f} ms, kernel verification "
          f"{tot[1] * 1e3:.1f} ms, kernel load {tot[2] * 1e3:.1f} ms; strbpf slower than the kernel's load on "
          f"{len(slower)}" + (f": {', '.join(slower)}" if slower else ""))


if __name__ == "__main__":
    main()
