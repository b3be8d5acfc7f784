#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Regenerates the malformed objects in tests/elf/ (see README.md). Run from anywhere:
    python3 tests/elf/make_malformed.py [clang]
Each bad_*.o is tests/elf/src/small.bpf.c compiled with clang -O2 -g -target bpf, then one header field or
record changed; the others are compiled as they are. Output is deterministic for a given clang."""
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
CLANG = sys.argv[1] if len(sys.argv) > 1 else "clang"
CFLAGS = ["-O2", "-g", "-Wall", "-I" + os.path.join(HERE, "..", "..", "include", "bpf"),
          "-I/usr/include/x86_64-linux-gnu"]


def compile_c(src, out, target):
    args = [CLANG] + CFLAGS + ["-c", os.path.join(SRC, src), "-o", os.path.join(HERE, out)]
    if target:
        args[1:1] = ["-target", target]
    subprocess.run(args, check=True)
    with open(os.path.join(HERE, out), "rb") as f:
        return bytearray(f.read())


class Elf:
    """Just enough ELF64 little-endian to find and patch section headers, relocations and .BTF.ext."""
    SHDR = "<IIQQQQIIQQ"  # name type flags addr offset size link info addralign entsize

    def __init__(self, data):
        self.d = data
        self.shoff = struct.unpack_from("<Q", data, 0x28)[0]
        self.shnum, self.shstrndx = struct.unpack_from("<HH", data, 0x3C)
        self.names = {}
        strtab = self.shdr(self.shstrndx)
        for i in range(self.shnum):
            off = strtab[4] + self.shdr(i)[0]
            self.names[data[off:data.index(b"\0", off)].decode()] = i

    def shdr_at(self, i):
        return self.shoff + 64 * i

    def shdr(self, i):
        return struct.unpack_from(self.SHDR, self.d, self.shdr_at(i))

    def set_field(self, name, field, value):
        fmt_offsets = {"name": ("<I", 0), "type": ("<I", 4), "offset": ("<Q", 24), "size": ("<Q", 32),
                       "link": ("<I", 40), "info": ("<I", 44), "entsize": ("<Q", 56)}
        fmt, off = fmt_offsets[field]
        struct.pack_into(fmt, self.d, self.shdr_at(self.names[name]) + off, value)

    def section_offset(self, name):
        return self.shdr(self.names[name])[4]


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(bytes(data))


def mutate(good, name, fn):
    e = Elf(bytearray(good))
    fn(e)
    write(name, e.d)


def set_reloc(e, sec, index, offset=None, sym=None, rtype=None):
    base = e.section_offset(sec) + 16 * index
    r_off, r_info = struct.unpack_from("<QQ", e.d, base)
    r_off = r_off if offset is None else offset
    sym = (r_info >> 32) if sym is None else sym
    rtype = (r_info & 0xFFFFFFFF) if rtype is None else rtype
    struct.pack_into("<QQ", e.d, base, r_off, (sym << 32) | rtype)


def btf_ext_first_func_count(e, value):
    base = e.section_offset(".BTF.ext")
    hdr_len, func_off = struct.unpack_from("<II", e.d, base + 4)
    # func_info block: rec_size, then {sec_name_off, num_info}: num_info is 8 bytes in.
    struct.pack_into("<I", e.d, base + hdr_len + func_off + 8, value)


def main():
    good = compile_c("small.bpf.c", "good_small.o", "bpf")
    compile_c("unknown_map_type.bpf.c", "unknown_map_type.o", "bpf")
    compile_c("unknown_section.bpf.c", "unknown_section.o", "bpf")
    compile_c("small.bpf.c", "big_endian.o", "bpfeb")
    compile_c("host.c", "host_x86_64.o", None)
    write("not_elf.bin", b"this is not an ELF file\n")
    write("bad_truncated_half.o", good[: len(good) // 2])
    mutate(good, "bad_shoff_beyond_file.o", lambda e: struct.pack_into("<Q", e.d, 0x28, 0xFFFFFFF0))
    mutate(good, "bad_shnum_huge.o", lambda e: struct.pack_into("<H", e.d, 0x3C, 0xFFFE))
    mutate(good, "bad_prog_size_not_multiple_of_8.o", lambda e: e.set_field("syscall", "size", 0x2C))
    mutate(good, "bad_prog_offset_beyond_file.o", lambda e: e.set_field("syscall", "offset", 0x7FFFFFFF))
    mutate(good, "bad_symtab_size_huge.o", lambda e: e.set_field(".symtab", "size", 0x7FFFFFFFF0))
    mutate(good, "bad_section_name_offset.o", lambda e: e.set_field("syscall", "name", 0xFFFFFF))
    mutate(good, "bad_reloc_symbol_index.o", lambda e: set_reloc(e, ".relsyscall", 0, sym=0xFFFFF))
    mutate(good, "bad_reloc_unaligned_offset.o", lambda e: set_reloc(e, ".relsyscall", 0, offset=4))
    mutate(good, "bad_reloc_beyond_section.o", lambda e: set_reloc(e, ".relsyscall", 0, offset=0x1000))
    mutate(good, "bad_reloc_type_abs64.o", lambda e: set_reloc(e, ".relsyscall", 0, rtype=2))
    mutate(good, "bad_btf_ext_huge_count.o", lambda e: btf_ext_first_func_count(e, 0xFFFFFFFF))


if __name__ == "__main__":
    main()
