#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Unit test of scripts/kernel_selftests_report.py (make kernel-selftests' report) on the hand-written JSON Lines
of sample/: the closing line, the per-file counts, the categories and the listed disagreements, computed from the
fixture without the kernel tree. Registered in ctest as kernel_selftests_report."""
import pathlib
import subprocess
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
SCRIPT = HERE.parents[1] / "scripts" / "kernel_selftests_report.py"
SAMPLE = HERE / "sample"
sys.path.insert(0, str(SCRIPT.parent))
import kernel_selftests_report as ksr  # noqa: E402


def run(*extra):
    with tempfile.TemporaryDirectory() as d:
        out = pathlib.Path(d) / "report.md"
        p = subprocess.run([sys.executable, str(SCRIPT), "--results", str(SAMPLE), "--manifest",
                            str(SAMPLE / "objects.tsv"), "--out", str(out), *extra],
                           capture_output=True, text=True, check=True)
        return p.stdout, out.read_text()


class ReportOnSample(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.stdout, cls.md = run()
        tests, bad = ksr.load_tests(SAMPLE)
        cls.bad = bad
        cls.report = ksr.Report(tests, ksr.load_manifest(SAMPLE / "objects.tsv"))

    def test_closing_line_is_the_last_line(self):
        self.assertEqual(self.stdout.splitlines()[-1],
                         "kernel-selftests: 10 tests, 4 verdicts agree, 1 strbpf-only accepts, "
                         "2 kernel-only accepts, 3 no strbpf verdict")

    def test_stdout_lists_the_verifier_worklist(self):
        self.assertIn("top kernel accepts, strbpf rejects:\n      2  RN min value is outside of the allowed memory "
                      "range\n", self.stdout)

    def test_every_line_is_read(self):
        self.assertEqual(self.bad, [])

    def test_per_file_counts(self):
        c = self.report.rows["verifier_and"].c
        self.assertEqual((c["tests"], c["judged"], c["agree"], c["msg_compared"], c["msg_agree"]), (3, 3, 3, 2, 1))
        c = self.report.rows["verifier_mix"].c
        # mix_kskip: the kernel SKIPped it, so it is a test but not judged.
        self.assertEqual((c["tests"], c["judged"], c["strbpf-only"], c["kernel-only"], c["interp_jit"]),
                         (5, 4, 1, 2, 1))
        self.assertEqual((c["ret_compared"], c["ret_agree"]), (1, 1))  # interp's retval stands for strbpf's
        self.assertEqual(self.report.rows["verifier_sect"].c["no-verdict"], 3)
        self.assertEqual(self.report.rows["verifier_broken"].status, "compile-failed")

    def test_unpriv_is_counted_apart(self):
        c = self.report.unpriv_total.c
        self.assertEqual((c["tests"], c["strbpf-only"]), (1, 1))
        self.assertIn("unpriv (not in the closing line)", self.stdout)

    def test_categories_strip_numbers_and_keep_sections(self):
        self.assertEqual(self.report.categories.most_common(), [
            ("kernel accepts, strbpf rejects: RN min value is outside of the allowed memory range", 2),
            ("no strbpf verdict: unknown program type for section 'struct_ops'", 2),
            ("strbpf accepts, kernel rejects: RN invalid mem access 'scalar'", 1),
            ("no strbpf verdict: unknown program type for section 'lsm/file_open'", 1)])

    def test_report_lists_every_disagreement_with_both_messages(self):
        kinds = sorted((k, t.name) for k, t, _ in self.report.disagreements())
        self.assertEqual(kinds, [("interp≠jit", "mix_retval"), ("kernel-only", "mix_k1"), ("kernel-only", "mix_k2"),
                                 ("messages", "and_msg"), ("no-verdict", "sect_a"), ("no-verdict", "sect_b"),
                                 ("no-verdict", "sect_c"), ("strbpf-only", "mix_s")])
        self.assertIn("R2 invalid mem access 'scalar'", self.md)
        self.assertIn("messages missing: R1 min value is negative", self.md)
        self.assertIn("| verifier_broken | compile failed |", self.md)
        self.assertIn("`verifier_broken`: compile-failed: progs/verifier_broken.c:3:1", self.md)
        self.assertIn("`kernel-selftests: 10 tests, 4 verdicts agree", self.md)

    def test_category_drops_program_and_pc(self):
        self.assertEqual(ksr.category_text("load failed: program 'reg_equal_const': pc 12: unknown func #9"),
                         "unknown func #9")
        self.assertEqual(ksr.category_text("strbpf cannot load the object: /b/objs/verifier_sock.bpf.o: program "
                                           "'t1': unknown program type for section 'cgroup/sock'"),
                         "unknown program type for section 'cgroup/sock'")
        self.assertEqual(ksr.category_text("strbpf cannot load the object: x.bpf.o: map 'map_prog1_tc': unsupported "
                                           "map type 24"), "unsupported map type 24")
        self.assertEqual(ksr.category_text("invalid access to map value, value_size=8 off=-1 size=4"),
                         "invalid access to map value, value_size=N off=N size=N")
        self.assertEqual(ksr.category_text("unknown func bpf_ktime_get_ns#5"), "unknown func bpf_ktime_get_ns#5")
        self.assertEqual(ksr.category_text(""), "(no message)")

    def test_unjudged_tests_are_grouped_by_the_kernels_reason(self):
        self.assertEqual(self.report.unjudged(), {("priv", "__arch_armN"): 1})
        self.assertIn("| priv | __arch_armN | 1 |", self.md)

    def test_kernel_unavailable_is_said(self):
        stdout, md = run("--kernel-unavailable", "bpf() not permitted")
        self.assertIn("kernel engine did not run (bpf() not permitted); strbpf's side (priv):", stdout)
        self.assertRegex(stdout, r"\ninterp +11 +4 +4 +3 +5 +3 +3\n")
        self.assertIn("**The kernel engine did not run: bpf() not permitted.**", md)


if __name__ == "__main__":
    unittest.main(verbosity=2)
