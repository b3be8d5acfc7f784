#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Runs the shell commands of README.md and docs/*.md as a new user would type them (tests).

Every fenced code block tagged `sh` holds commands, one per line (a trailing backslash continues a line, a `#`
starting a word begins a comment); `text` blocks are synopses and output. An untagged block that starts like a
command (build/..., make, scripts/, clang, ctest, strbpf) is an error: commands must be tagged so that this test
sees them. Each command runs from the source directory, with `build/release/` read as the build directory under test
and a leading `strbpf` (the installed name) as its CLI, `/tmp/` as a directory private to this run, and must exit
0.

Commands are run, skipped or run only where bpf() works:
  * a comment containing `needs bpf()` marks a command that needs the kernel engine: it runs only where the kernel
    engine works (probed once with `strbpf run ... --engine kernel`), else it is counted as skipped;
  * SKIPPED below lists the commands this test never runs, each with its reason (they rebuild or reinstall the tree,
    run the whole suite, measure for minutes, or need a download).
Output: one `PASS`, `FAIL` or `SKIP` line per command, then
`docs-commands: N commands, P passed, F failed, S skipped`. Exit status 1 when a command failed or none ran.
"""
import argparse
import os
import shutil
import re
import subprocess
import sys
import tempfile

# (pattern matched at the start of a command, reason). The explicit list of commands this test does not run.
SKIPPED = [
    (r"make( |$)", "a make target: installs packages (scripts/setup-deps.sh), rebuilds the tree or runs the suite"),
    (r"(build/release/)?strbpf bench\b", "a benchmark: seconds to minutes of measuring, and no test is timed"),
    (r"scripts/kernel-selftests\.sh\b", "downloads and builds the kernel's selftests (minutes)"),
    (r"(scripts/bpf-conformance\.sh|bpf_conformance_runner)\b", "needs a local copy of the bpf_conformance suite"),
    (r"ctest\b", "runs ctest from within ctest"),
    (r"build/fuzz/", "needs the fuzz build (make fuzz)"),
]
COMMAND_START = re.compile(r"(build/|make( |$)|scripts/|clang|ctest\b|strbpf )")
FENCE = re.compile(r"^```(\S*)\s*$")


def blocks(path):
    """Yields (language, first line number, lines) for every fenced block of a Markdown file."""
    lang, start, body = None, 0, []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = FENCE.match(line.rstrip("\n"))
            if m and lang is None:
                lang, start, body = m.group(1), n + 1, []
            elif m:
                yield lang, start, body
                lang = None
            elif lang is not None:
                body.append(line.rstrip("\n"))


def split_comment(text):
    """(command, comment): a `#` that starts a word outside quotes begins the comment, as in sh."""
    quote = None
    for i, c in enumerate(text):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or text[i - 1].isspace()):
            return text[:i].strip(), text[i + 1:].strip()
    return text.strip(), ""


def commands(lines, start):
    """Yields (line number, command, comment) for the logical lines of a sh block."""
    pending, first = "", start
    for i, line in enumerate(lines):
        if not pending:
            first = start + i
        if line.endswith("\\"):
            pending += line[:-1].rstrip() + " "
            continue
        text = pending + line.strip()
        pending = ""
        code, comment = split_comment(text)
        if code:
            yield first, code, comment.strip()


def collect(source):
    docs = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(source, "docs")) if f.endswith(".md"))
    found, errors = [], []
    for doc in docs:
        for lang, start, body in blocks(os.path.join(source, doc)):
            first = next((l.strip() for l in body if l.strip()), "")
            if lang == "sh":
                found += [(f"{doc}:{n}", code, comment) for n, code, comment in commands(body, start)]
            elif lang == "" and COMMAND_START.match(first):
                errors.append(f"{doc}:{start}: a block of commands not tagged sh: {first}")
    return found, errors


def kernel_engine_works(cli, build):
    probe = os.path.join(build, "examples", "strings.bpf.o")
    r = subprocess.run([cli, "run", probe, "--engine", "kernel", "--prog", "line_length", "--ctx-hex", "00" * 64],
                       capture_output=True, text=True)
    return r.returncode == 0, (r.stdout + r.stderr).strip().splitlines()[-1:] or [""]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--build", required=True, help="the build directory that build/release/ stands for")
    ap.add_argument("--cli", required=True, help="the strbpf binary under test")
    ap.add_argument("--list", action="store_true", help="print the commands and what would happen, run nothing")
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    found, errors = collect(args.source)
    for e in errors:
        print("FAIL", e)
    kernel_ok, why = (False, ["not probed"]) if args.list else kernel_engine_works(args.cli, build)
    if not kernel_ok:
        print(f"NOTE kernel engine unavailable, commands marked `needs bpf()` are skipped: {why[0]}")
    env = dict(os.environ, STRBPF=args.cli)
    passed = failed = skipped = 0
    scratch = tempfile.mkdtemp(prefix="strbpf-docs-")  # /tmp/ in a command: private to this run
    for where, code, comment in found:
        reason = next((why for pat, why in SKIPPED if re.match(pat, code)), None)
        if reason is None and "needs bpf()" in comment and not kernel_ok:
            reason = "needs bpf(), which does not work here"
        if reason:
            print(f"SKIP {where}: {code} ({reason})")
            skipped += 1
            continue
        cmd = re.sub(r"^strbpf ", "build/release/strbpf ", code)
        # One pass, at word starts only: the replacements themselves may contain "build/release/".
        cmd = re.sub(r"(?<![\w/.])(build/release/strbpf(?![\w/.])|build/release/|/tmp/)",
                     lambda m: args.cli if m.group(1).endswith("strbpf") else
                     build + "/" if m.group(1).startswith("build") else scratch + "/", cmd)
        if args.list:
            print(f"RUN  {where}: {cmd}")
            continue
        try:
            r = subprocess.run(["sh", "-c", cmd], cwd=args.source, env=env, capture_output=True, text=True,
                               timeout=args.timeout)
            rc, out = r.returncode, r.stdout + r.stderr
        except subprocess.TimeoutExpired:
            rc, out = "timeout", f"still running after {args.timeout:g} s"
        if rc == 0:
            print(f"PASS {where}: {code}")
            passed += 1
        else:
            print(f"FAIL {where}: {code}: exit {rc}\n    " + "\n    ".join(out.strip().splitlines()[-10:]))
            failed += 1
    shutil.rmtree(scratch, ignore_errors=True)
    failed += len(errors)
    print(f"docs-commands: {len(found)} commands, {passed} passed, {failed} failed, {skipped} skipped")
    if args.list:
        return 0
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
