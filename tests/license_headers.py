#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Every source file of the repository carries an SPDX line in its first three lines: BSD-2-Clause (LICENSE), or
"GPL-2.0-only OR BSD-2-Clause" for BPF C programs and the headers they include (their license section says GPL to
the kernel). Malformed-ELF sources (tests/elf) and fuzz findings (tests/fuzz) are inputs, not sources."""
import os
import sys

SOURCE_EXT = ('.cpp', '.hpp', '.h', '.c', '.def', '.sh', '.py', '.cmake')
SOURCE_NAMES = ('CMakeLists.txt', 'Makefile')
SKIP_DIRS = ('.git', 'build', os.path.join('tests', 'elf'), os.path.join('tests', 'fuzz'))


def expected(rel):
    if rel.endswith('.bpf.c') or rel.startswith(os.path.join('include', 'bpf') + os.sep) or \
            (rel.endswith('.h') and os.sep + 'progs' + os.sep in os.sep + rel):
        return 'GPL-2.0-only OR BSD-2-Clause'
    return 'BSD-2-Clause'


def main(root):
    bad, seen = [], 0
    for d, dirs, files in os.walk(root):
        rel_d = os.path.relpath(d, root)
        dirs[:] = [x for x in dirs if os.path.normpath(os.path.join(rel_d, x)) not in SKIP_DIRS
                   and not x.startswith('build')]
        for name in files:
            if not (name.endswith(SOURCE_EXT) or name in SOURCE_NAMES):
                continue
            rel = os.path.normpath(os.path.join(rel_d, name))
            with open(os.path.join(d, name), encoding='utf-8', errors='replace') as f:
                head = [f.readline() for _ in range(3)]
            seen += 1
            want = 'SPDX-License-Identifier: ' + expected(rel)
            if not any(line.rstrip().endswith(want) for line in head):
                bad.append(f'{rel}: no "{want}" in its first three lines')
    for b in bad:
        print(b)
    print(f'license_headers: {seen} source files, {len(bad)} without their SPDX line')
    return 1 if bad or seen == 0 else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else '.'))
