// SPDX-License-Identifier: BSD-2-Clause
// The seed-corpus builder of the fuzz targets (fuzz stage): `strbpf_fuzz_seeds CORPUS PROGS TESTS` writes
// CORPUS/<target>/ from the compiled test programs (PROGS/*.bpf.o), TESTS/elf/* and TESTS/cases/**/*.data, plus
// a few generated seeds for the structured generator and the string kernels. Deterministic: same tree, same files.
// `strbpf_fuzz_seeds --to-raw IN OUT` turns a structured-program finding into the equivalent raw input.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/harness.hpp"
#include "isa/assembler.hpp"
#include "isa/insn.hpp"
#include "loader/loader.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"

namespace fs = std::filesystem;
using namespace strbpf;

namespace {

void write(const fs::path& dir, const std::string& name, const std::vector<uint8_t>& bytes) {
    std::ofstream out(dir / name, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

std::vector<uint8_t> read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The harness map standing in for map `m` of a test object.
int32_t harness_map(const loader::MapSpec& m) {
    if (m.global_data)
        return m.frozen ? fuzz::kMapRodata : fuzz::kMapBss;
    switch (m.type) {
    case loader::kMapArray:
        return fuzz::kMapArr;
    case loader::kMapPercpuArray:
        return fuzz::kMapPcpu;
    case loader::kMapLruHash:
        return fuzz::kMapLru;
    case loader::kMapRingbuf:
        return fuzz::kMapRingbuf;
    default:
        return fuzz::kMapHash;
    }
}

// A raw-mode input: header (raw, program type, ctx prefix) then the instruction words.
std::vector<uint8_t> raw_input(bool xdp, const std::vector<uint8_t>& ctx, const std::vector<isa::Insn>& insns) {
    std::vector<uint8_t> b{uint8_t(3 | (xdp ? 4 : 0)), uint8_t(std::min<size_t>(ctx.size(), 255))};
    b.insert(b.end(), ctx.begin(), ctx.begin() + b[1]);
    const auto* p = reinterpret_cast<const uint8_t*>(insns.data());
    b.insert(b.end(), p, p + insns.size() * sizeof(isa::Insn));
    return b;
}

// The program with its map and kfunc references renumbered for the harness object.
std::vector<isa::Insn> remap(const loader::ObjectSpec& obj, const loader::ProgramSpec& prog) {
    std::vector<isa::Insn> out = prog.insns;
    for (isa::Insn& i : out) {
        if (isa::is_ld_imm64(i) && (i.src == isa::BPF_PSEUDO_MAP_FD || i.src == isa::BPF_PSEUDO_MAP_VALUE) &&
            size_t(i.imm) < obj.maps.size())
            i.imm = harness_map(obj.maps[size_t(i.imm)]);
        if (i.opcode == (isa::BPF_JMP | isa::BPF_CALL) && i.src == isa::BPF_PSEUDO_KFUNC_CALL &&
            size_t(i.imm) < obj.kfuncs.size())
            i.imm = runtime::kfunc_index(obj.kfuncs[size_t(i.imm)]);
    }
    return out;
}

// Programs of the test objects → raw seeds for every program target; the objects themselves → elf_loader.
int from_objects(const fs::path& progs, const std::vector<fs::path>& prog_dirs) {
    int n = 0;
    for (const auto& e : fs::directory_iterator(progs)) {
        if (e.path().extension() != ".o")
            continue;
        const std::string stem = e.path().stem().stem().string();
        fs::copy_file(e.path(), prog_dirs[0].parent_path() / "elf_loader" / e.path().filename(),
                      fs::copy_options::overwrite_existing);
        auto obj = loader::load_object_file(e.path().string());
        if (!obj)
            continue;
        for (const loader::ProgramSpec& p : obj->programs) {
            const auto input = raw_input(p.type == loader::ProgType::xdp, {}, remap(*obj, p));
            for (const fs::path& d : prog_dirs)
                write(d, stem + "-" + p.name, input);
            n++;
        }
    }
    return n;
}

// tests/cases/**/*.data: the "-- asm" program and "-- mem" bytes (as the syscall ctx) → raw seeds.
int from_cases(const fs::path& cases, const std::vector<fs::path>& prog_dirs) {
    int n = 0;
    for (const auto& e : fs::recursive_directory_iterator(cases)) {
        if (e.path().extension() != ".data")
            continue;
        std::ifstream in(e.path());
        std::string line, section, asm_text, mem_text;
        while (std::getline(in, line)) {
            if (line.rfind("-- ", 0) == 0) {
                section = line.substr(3);
                continue;
            }
            if (section == "asm")
                asm_text += line + "\n";
            else if (section == "mem")
                mem_text += line + " ";
        }
        auto insns = isa::assemble(asm_text);
        if (!insns || insns->empty())
            continue;
        std::vector<uint8_t> mem;
        std::istringstream hex(mem_text);
        for (std::string byte; hex >> byte;)
            mem.push_back(uint8_t(std::strtoul(byte.c_str(), nullptr, 16)));
        const auto input = raw_input(false, mem, *insns);
        for (const fs::path& d : prog_dirs)
            write(d, "case-" + e.path().parent_path().filename().string() + "-" + e.path().stem().string(), input);
        n++;
    }
    return n;
}

// Pseudo-random bytes (a fixed LCG): inputs for the structured generator and the string kernels.
std::vector<uint8_t> lcg_bytes(uint64_t seed, size_t n) {
    std::vector<uint8_t> b(n);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        b[i] = uint8_t(seed >> 56);
    }
    return b;
}

int generated(const std::vector<fs::path>& prog_dirs, const fs::path& strings) {
    int n = 0;
    for (uint64_t s = 1; s <= 48; s++) {
        std::vector<uint8_t> in = lcg_bytes(s, 64 + s * 16);
        in[0] = uint8_t((s % 2) ? 0 : 4); // structured, syscall or xdp
        in[1] = uint8_t(s * 5);
        for (const fs::path& d : prog_dirs)
            write(d, "gen-" + std::to_string(s), in);
        n++;
    }
    const char* words[] = {"hello", "abcabcabd", "aAbBcC", "\xc0\xe0\xd7\xf7", "needle in a haystack"};
    for (uint64_t s = 0; s < 32; s++) {
        std::vector<uint8_t> in = lcg_bytes(s + 100, 8);
        const std::string w = words[s % std::size(words)];
        in.insert(in.end(), w.begin(), w.end());
        in.push_back(uint8_t(s % 3 ? 0 : 'x'));
        in.insert(in.end(), w.begin() + long(s % w.size()), w.end());
        write(strings, "gen-" + std::to_string(s), in);
        n++;
    }
    return n;
}

} // namespace

// `--to-raw IN OUT`: a structured program input rewritten as the raw input of the same program, so a finding
// kept in tests/fuzz/ does not change meaning when the generator changes; prints the program.
int to_raw(const fs::path& in, const fs::path& out) {
    const std::vector<uint8_t> bytes = read(in);
    const fuzz::FuzzProgram p = fuzz::decode_program(bytes.data(), bytes.size(), false);
    const std::vector<uint8_t> raw = raw_input(p.type == loader::ProgType::xdp, p.ctx_prefix, p.insns);
    write(out.parent_path().empty() ? fs::path(".") : out.parent_path(), out.filename().string(), raw);
    std::printf("%s: %zu instructions, %s\n%s", out.c_str(), p.insns.size(), p.structured ? "was structured" : "raw",
                isa::to_asm_program(p.insns).c_str());
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 4 && std::string(argv[1]) == "--to-raw")
        return to_raw(argv[2], argv[3]);
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s CORPUS_DIR PROGS_DIR TESTS_DIR\n       %s --to-raw IN OUT\n", argv[0], argv[0]);
        return 2;
    }
    const fs::path corpus = argv[1], progs = argv[2], tests = argv[3];
    std::vector<fs::path> prog_dirs;
    for (const char* t : {"verifier", "verifier_soundness", "interp_vs_jit"})
        prog_dirs.push_back(corpus / t);
    for (const char* t : {"elf_loader", "verifier", "verifier_soundness", "interp_vs_jit", "strings"})
        fs::create_directories(corpus / t);
    int elf = 0;
    for (const auto& e : fs::directory_iterator(tests / "elf"))
        if (e.is_regular_file() && e.path().extension() != ".py" && e.path().extension() != ".md") {
            write(corpus / "elf_loader", e.path().filename().string(), read(e.path()));
            elf++;
        }
    const int objs = from_objects(progs, prog_dirs);
    const int cases = from_cases(tests / "cases", prog_dirs);
    const int gen = generated(prog_dirs, corpus / "strings");
    std::printf("seeds: %d tests/elf files, %d programs of tests/progs, %d ISA cases, %d generated\n", elf, objs, cases,
                gen);
    return 0;
}
