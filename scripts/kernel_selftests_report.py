#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""make kernel-selftests' report: reads the JSON Lines of `strbpf test --json` (one record per test x engine x
variant) and measures strbpf against the live kernel's verdict under the same flags -- not against the test's own
annotation, which the kernel itself disagrees with on older selftests. Writes report.md, prints the per-file table,
the top disagreement categories and one closing line:

  kernel-selftests: T tests, A verdicts agree, S strbpf-only accepts, K kernel-only accepts, N no strbpf verdict

T counts the priv variant of every test the kernel judged (accepted or rejected); unpriv variants are reported in
their own totals and left out of the closing line. strbpf's verdict is its interpreter's (the verifier decides it;
the JIT only runs what the verifier accepted), falling back to the JIT's when the interpreter gave none; interp and
jit are also compared with each other and every difference is listed separately.
"""
import argparse
import collections
import json
import pathlib
import re
import sys

STRBPF_ENGINES = ("interp", "jit")


class Test:
    """One test x variant: the records of each engine."""

    def __init__(self, obj, prog, name, variant):
        self.obj, self.prog, self.name, self.variant = obj, prog, name, variant
        self.by_engine = {}

    def rec(self, engine):
        return self.by_engine.get(engine)

    def verdict(self, engine):
        r = self.rec(engine)
        return r.get("verdict") if r else None

    @property
    def kernel_verdict(self):
        return self.verdict("kernel")

    @property
    def strbpf_engine(self):
        """The engine whose verdict stands for strbpf's: interp, else jit, else None."""
        for e in STRBPF_ENGINES:
            if self.verdict(e) is not None:
                return e
        return None

    @property
    def strbpf_verdict(self):
        e = self.strbpf_engine
        return self.verdict(e) if e else None

    def strbpf_rec(self):
        e = self.strbpf_engine
        if e:
            return self.rec(e)
        return next((self.rec(e) for e in STRBPF_ENGINES if self.rec(e)), None)

    @property
    def judged(self):
        return self.kernel_verdict is not None

    def outcome(self):
        """agree | strbpf-only | kernel-only | no-verdict | None (not judged by the kernel)."""
        if not self.judged:
            return None
        s, k = self.strbpf_verdict, self.kernel_verdict
        if s is None:
            return "no-verdict"
        if s == k:
            return "agree"
        return "strbpf-only" if s == "accepted" else "kernel-only"

    def messages_compared(self):
        """(compared, agree): both sides checked the test's __msg/__regex patterns."""
        s, k = self.strbpf_rec(), self.rec("kernel")
        if self.outcome() != "agree" or not s or not k:
            return False, False
        sm, km = s.get("messages"), k.get("messages")
        if sm is None or km is None:
            return False, False
        return True, (sm == "ok") == (km == "ok")

    def retval_compared(self):
        s, k = self.strbpf_rec(), self.rec("kernel")
        if not s or not k or s.get("retval") is None or k.get("retval") is None:
            return False, False
        return True, s["retval"] == k["retval"]

    def interp_jit_difference(self):
        """A one-line description of how interp and jit differ, or None."""
        i, j = self.rec("interp"), self.rec("jit")
        if not i or not j:
            return None
        diffs = [f"{f} {i.get(f)!r} vs {j.get(f)!r}" for f in ("verdict", "retval", "messages")
                 if i.get(f) != j.get(f)]
        return "; ".join(diffs) or None


def load_tests(results_dir):
    """Reads every *.jsonl under results_dir; returns ({(obj, prog, test, variant): Test}, [bad lines])."""
    tests, bad = {}, []
    for path in sorted(pathlib.Path(results_dir).glob("*.jsonl")):
        for lineno, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                key = (r["object"], r["prog"], r.get("test") or r["prog"], r.get("variant", "priv"))
                engine = r["engine"]
            except (ValueError, KeyError, TypeError) as e:
                bad.append(f"{path.name}:{lineno}: {e}")
                continue
            t = tests.setdefault(key, Test(*key))
            t.by_engine[engine] = r
    return tests, bad


def load_manifest(path):
    """objects.tsv: name, status, detail. Missing file: no manifest."""
    if not path or not pathlib.Path(path).exists():
        return {}
    out = {}
    for line in pathlib.Path(path).read_text().splitlines():
        if line.strip():
            name, status, detail = (line.split("\t") + ["", ""])[:3]
            out[name] = (status, detail)
    return out


_NUMBER = re.compile(r"-?\b0x[0-9a-fA-F]+\b|-?\d+")
# Where a reason happened, not what: strbpf's and libbpf's object-level prefixes, the object's path, the program's
# or map's name, the pc.
_WHERE = re.compile(r"^(?:(?:strbpf cannot load the object|load failed): "
                    r"|program '[^']*': |map '[^']*': |pc \d+: )+")
_PATH = re.compile(r"(?:\S*/)?[\w.+-]+\.o(?:: |\b)")
# Numbers that name what is missing stay: quoted names (sections, fields), map/program types, helper ids.
_KEEP = re.compile(r"('[^']*'|\b(?:map|program|prog|attach) type \d+|\bhelper id \d+|\w*#\d+)")


def category_text(text):
    """A reason without where it happened (program, map, pc) and with its numbers stripped, so R1/R2, offsets
    and sizes group together, except numbers that name the missing thing: "unknown program type for section
    'cgroup/recvmsg4'" is counted per section, "unsupported map type 24" per map type."""
    text = _WHERE.sub("", _PATH.sub("", (text or "").strip())) or "(no message)"
    return "".join(part if i % 2 else _NUMBER.sub("N", part) for i, part in enumerate(_KEEP.split(text)))


def disagreement_category(t):
    """The category of a test the kernel judged and strbpf did not agree with, or None."""
    o = t.outcome()
    s, k = t.strbpf_rec() or {}, t.rec("kernel") or {}
    if o == "kernel-only":
        return "kernel accepts, strbpf rejects: " + category_text(s.get("error"))
    if o == "strbpf-only":
        return "strbpf accepts, kernel rejects: " + category_text(k.get("error"))
    if o == "no-verdict":
        return "no strbpf verdict: " + category_text(s.get("error") or s.get("reason"))
    return None


class FileRow:
    COLUMNS = ("file", "tests", "kernel PASS", "judged", "agree", "S", "K", "N", "msg agree", "retval agree",
               "interp≠jit")

    def __init__(self, name, status="ok", detail=""):
        self.name, self.status, self.detail = name, status, detail
        self.c = collections.Counter()

    def add(self, t):
        c = self.c
        c["tests"] += 1
        k = t.rec("kernel")
        if k and k.get("result") == "PASS":
            c["kernel_pass"] += 1
        if k:
            c["kernel_ran"] += 1
        o = t.outcome()
        if o:
            c["judged"] += 1
            c[o] += 1
        compared, agree = t.messages_compared()
        c["msg_compared"] += compared
        c["msg_agree"] += agree
        compared, agree = t.retval_compared()
        c["ret_compared"] += compared
        c["ret_agree"] += agree
        c["interp_jit"] += t.interp_jit_difference() is not None

    def cells(self):
        c = self.c
        if self.status == "compile-failed":
            return [self.name, "compile failed"] + [""] * (len(self.COLUMNS) - 2)
        if self.status == "run-failed" and not c["tests"]:
            return [self.name, "strbpf failed"] + [""] * (len(self.COLUMNS) - 2)
        kp = f"{c['kernel_pass']}/{c['kernel_ran']}" if c["kernel_ran"] else "-"
        return [self.name, str(c["tests"]), kp, str(c["judged"]), str(c["agree"]), str(c["strbpf-only"]),
                str(c["kernel-only"]), str(c["no-verdict"]), f"{c['msg_agree']}/{c['msg_compared']}",
                f"{c['ret_agree']}/{c['ret_compared']}", str(c["interp_jit"])]


def side_text(r):
    """One engine's record in a line: verdict, its one-line reason, the message check, why it FAILed/SKIPped."""
    if not r:
        return "no record"
    parts = [r.get("verdict") or "no verdict"]
    if r.get("error"):
        parts[0] += ": " + r["error"]
    if r.get("messages") is not None:
        parts.append("messages " + r["messages"])
    if r.get("retval") is not None:
        parts.append(f"retval {r['retval']}")
    if r.get("reason"):
        parts.append(f"{r.get('result', '')} because {r['reason']}")
    return "; ".join(parts)


def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    return "\n".join(lines)


def text_table(header, rows):
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    fmt = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
    return "\n".join([fmt(header)] + [fmt(r) for r in rows])


class Report:
    def __init__(self, tests, manifest, kernel_unavailable=None):
        self.tests = tests
        self.kernel_unavailable = kernel_unavailable
        self.priv = [t for t in tests.values() if t.variant == "priv"]
        self.unpriv = [t for t in tests.values() if t.variant != "priv"]
        names = sorted(set(manifest) | {t.obj for t in tests.values()})
        self.rows = {n: FileRow(n, *manifest.get(n, ("ok", ""))) for n in names}
        for t in self.priv:
            self.rows[t.obj].add(t)
        self.total = FileRow("total")
        for t in self.priv:
            self.total.add(t)
        self.unpriv_total = FileRow("unpriv (not in the closing line)")
        for t in self.unpriv:
            self.unpriv_total.add(t)
        self.categories = collections.Counter(
            c for c in map(disagreement_category, self.priv) if c)

    def closing_line(self):
        c = self.total.c
        return (f"kernel-selftests: {c['judged']} tests, {c['agree']} verdicts agree, {c['strbpf-only']} "
                f"strbpf-only accepts, {c['kernel-only']} kernel-only accepts, {c['no-verdict']} no strbpf verdict")

    def table_rows(self):
        return [r.cells() for r in self.rows.values()] + [self.total.cells(), self.unpriv_total.cells()]

    def per_engine_rows(self):
        """strbpf's verdict per engine against the kernel's, priv variants the kernel judged."""
        rows = []
        for e in STRBPF_ENGINES:
            c = collections.Counter()
            for t in self.priv:
                if not t.judged:
                    continue
                v = t.verdict(e)
                c["judged"] += 1
                c["none" if v is None else ("agree" if v == t.kernel_verdict else v)] += 1
            rows.append([e, str(c["judged"]), str(c["agree"]), str(c["accepted"]), str(c["rejected"]),
                         str(c["none"])])
        return rows

    def strbpf_side_rows(self):
        """strbpf's own verdicts and annotation results, whatever the kernel did (all that is left without bpf())."""
        rows = []
        for e in STRBPF_ENGINES:
            c = collections.Counter()
            for t in self.priv:
                r = t.rec(e)
                if r:
                    c["records"] += 1
                    c[r.get("verdict") or "none"] += 1
                    c[r.get("result", "?")] += 1
            rows.append([e, str(c["records"]), str(c["accepted"]), str(c["rejected"]), str(c["none"]),
                         str(c["PASS"]), str(c["FAIL"]), str(c["SKIP"])])
        return rows

    def unjudged(self):
        """(variant, why) -> count for the tests the kernel gave no verdict (they are not in T)."""
        c = collections.Counter()
        for t in self.tests.values():
            if not t.judged:
                k = t.rec("kernel")
                c[(t.variant, category_text(k.get("reason") or k.get("error")) if k else "no kernel record")] += 1
        return c

    def disagreements(self):
        """(kind, test, detail) for every difference from the kernel, and every interp/jit difference."""
        out = []
        for t in sorted(self.priv, key=lambda t: (t.obj, t.name)):
            o = t.outcome()
            if o in ("strbpf-only", "kernel-only", "no-verdict"):
                out.append((o, t, ""))
            compared, agree = t.messages_compared()
            if compared and not agree:
                out.append(("messages", t, ""))
            compared, agree = t.retval_compared()
            if compared and not agree:
                out.append(("retval", t, f"strbpf {t.strbpf_rec()['retval']}, kernel {t.rec('kernel')['retval']}"))
            d = t.interp_jit_difference()
            if d:
                out.append(("interp≠jit", t, d))
        return out

    def markdown(self, title, elapsed, bad_lines):
        p = [f"# kernel-selftests report: {title}", ""]
        p.append("strbpf is measured against the live kernel's verdict on the same object under the same flags "
                 "(not against the test's annotation). T counts the priv variant of every test the kernel judged; "
                 "unpriv variants have their own totals row and are left out of the closing line. strbpf's verdict "
                 "is the interpreter's (the JIT's where the interpreter has none); interp and jit are compared "
                 "separately (column interp≠jit, and per engine below).")
        p.append("")
        p.append("Columns: *kernel PASS* = the kernel's result against the test's own annotation / tests it ran; "
                 "*judged* = tests with a kernel verdict; *agree*, *S* (strbpf-only accepts), *K* (kernel-only "
                 "accepts), *N* (no strbpf verdict); *msg agree* = among agreeing verdicts where both checked "
                 "the test's messages, both found them or both missed; *retval agree* = both ran, same r0.")
        p.append("")
        if self.kernel_unavailable:
            p += [f"**The kernel engine did not run: {self.kernel_unavailable}.** Only strbpf's side is reported.",
                  ""]
        if elapsed is not None:
            p += [f"Whole run: {elapsed // 60} min {elapsed % 60} s.", ""]
        p += [md_table(FileRow.COLUMNS, self.table_rows()), "", f"`{self.closing_line()}`", ""]
        p += ["## strbpf per engine against the kernel (priv)", "",
              md_table(("engine", "judged", "agree", "strbpf-only accepts", "kernel-only accepts", "no verdict"),
                       self.per_engine_rows()), ""]
        p += ["## strbpf's side (priv, whatever the kernel did)", "",
              md_table(("engine", "tests", "accepted", "rejected", "no verdict", "PASS", "FAIL", "SKIP"),
                       self.strbpf_side_rows()), ""]
        p += ["## Tests the kernel did not judge (not in T)", "",
              md_table(("variant", "kernel's reason", "count"),
                       [[v, why, str(n)] for (v, why), n in self.unjudged().most_common()]), ""]
        p += ["## Top disagreement categories", "",
              "Per test (priv): an object strbpf refuses whole counts each of its tests under that one reason. "
              "K is grouped by strbpf's rejection reason, S by the kernel's, N by strbpf's load error or skip "
              "reason; program and map names, pcs and numbers are stripped, but not section names, map types or "
              "helper ids.", "",
              md_table(("category", "count"), [[c, str(n)] for c, n in self.categories.most_common()]), ""]
        noted = [r for r in self.rows.values() if r.status != "ok" or r.detail]
        if noted:
            p += ["## Files that failed or were compiled differently", ""]
            p += [f"- `{r.name}`: {r.status}: {r.detail}" for r in noted]
            p.append("")
        if bad_lines:
            p += ["## Unreadable JSON lines", ""] + [f"- {b}" for b in bad_lines] + [""]
        p += ["## Every disagreement", ""]
        for kind, t, detail in self.disagreements():
            s, k = t.strbpf_rec() or {}, t.rec("kernel") or {}
            p.append(f"- **{kind}** `{t.obj}/{t.name}` (expected {k.get('expected') or s.get('expected')})"
                     + (f": {detail}" if detail else ""))
            p.append(f"  - strbpf ({s.get('engine', '-')}): {side_text(s)}")
            p.append(f"  - kernel: {side_text(k)}")
        p.append("")
        return "\n".join(p)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", required=True, help="directory of per-object *.jsonl from strbpf test --json")
    ap.add_argument("--manifest", help="objects.tsv: name, status (ok|compile-failed|run-failed), detail")
    ap.add_argument("--out", required=True, help="report.md to write")
    ap.add_argument("--title", default="")
    ap.add_argument("--elapsed", type=int, help="seconds the whole run took")
    ap.add_argument("--kernel-unavailable", help="why the kernel engine did not run")
    ap.add_argument("--top", type=int, default=10, help="categories printed on stdout")
    args = ap.parse_args(argv)

    tests, bad = load_tests(args.results)
    report = Report(tests, load_manifest(args.manifest), args.kernel_unavailable)
    pathlib.Path(args.out).write_text(report.markdown(args.title, args.elapsed, bad))

    print(text_table(FileRow.COLUMNS, report.table_rows()))
    print()
    if report.kernel_unavailable:
        print(f"kernel engine did not run ({report.kernel_unavailable}); strbpf's side (priv):")
        print(text_table(("engine", "tests", "accepted", "rejected", "no verdict", "PASS", "FAIL", "SKIP"),
                         report.strbpf_side_rows()))
        print()
    print(f"top disagreement categories ({len(report.categories)} in all, every one in {args.out}):")
    for c, n in report.categories.most_common(args.top):
        print(f"  {n:5d}  {c}")
    # N (loader breadth) dominates the overall list; the verifier's own worklist is K and S.
    for kind in ("kernel accepts, strbpf rejects: ", "strbpf accepts, kernel rejects: "):
        top = [(c, n) for c, n in report.categories.most_common() if c.startswith(kind)][:5]
        if top:
            print(f"top {kind.rstrip(': ')}:")
            for c, n in top:
                print(f"  {n:5d}  {c[len(kind):]}")
    if bad:
        print(f"{len(bad)} unreadable JSON lines (listed in {args.out})")
    print(report.closing_line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
