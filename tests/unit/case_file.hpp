// SPDX-License-Identifier: BSD-2-Clause
// Reading ISA case files (tests/cases/**/*.data, the uBPF / bpf_conformance sections) for engine tests: the
// sections "-- asm", "-- raw", "-- mem", "-- result", "-- error" as tests/cases/README.md describes them.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "isa/assembler.hpp"
#include "isa/insn.hpp"

namespace strbpf::test_cases {

struct CaseFile {
    std::string asm_text;
    std::vector<uint64_t> raw;
    bool has_raw = false;
    std::vector<uint8_t> mem;
    std::optional<uint64_t> result;
    std::optional<std::string> error;
};

inline std::string trim_line(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    const auto e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

inline uint64_t parse_case_number(const std::string& s) {
    const bool hex = s.find("0x") != std::string::npos || s.find("0X") != std::string::npos;
    if (!s.empty() && s[0] == '-')
        return uint64_t(std::stoll(s, nullptr, hex ? 16 : 10));
    return std::stoull(s, nullptr, hex ? 16 : 10);
}

// Assembler text keeps the file's line numbers, so assembler errors point into the file.
inline CaseFile parse_case_file(const std::filesystem::path& path) {
    std::ifstream in(path);
    CaseFile c;
    std::string line, section, result_text, error_text;
    int line_no = 0, asm_lines = 0;
    while (std::getline(in, line)) {
        line_no++;
        const std::string t = trim_line(line);
        if (t.rfind("--", 0) == 0) {
            section = trim_line(t.substr(2));
            c.has_raw = c.has_raw || section == "raw";
            continue;
        }
        if (section == "asm") {
            for (; asm_lines < line_no - 1; asm_lines++)
                c.asm_text += "\n";
            c.asm_text += line + "\n";
            asm_lines++;
        } else if (t.empty() || t[0] == '#') {
            continue;
        } else if (section == "raw") {
            std::istringstream ss(t);
            for (std::string w; ss >> w;)
                c.raw.push_back(parse_case_number(w));
        } else if (section == "mem") {
            std::istringstream ss(t);
            for (std::string b; ss >> b;)
                c.mem.push_back(uint8_t(std::stoul(b, nullptr, 16)));
        } else if (section == "result") {
            result_text = t;
        } else if (section == "error") {
            error_text = t;
        }
    }
    if (!result_text.empty())
        c.result = parse_case_number(result_text);
    if (!error_text.empty())
        c.error = error_text;
    return c;
}

// The case's program: raw words or assembled text. Returns false with *why set when assembly fails.
inline bool case_program(const CaseFile& c, std::vector<isa::Insn>* out, std::string* why) {
    if (c.has_raw) {
        out->resize(c.raw.size());
        std::memcpy(out->data(), c.raw.data(), c.raw.size() * sizeof(uint64_t));
        return true;
    }
    auto assembled = isa::assemble(c.asm_text);
    if (!assembled.ok()) {
        *why = assembled.error().message;
        return false;
    }
    *out = std::move(*assembled);
    return true;
}

inline std::vector<std::filesystem::path> all_case_files(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> files;
    if (std::filesystem::exists(dir))
        for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
            if (e.is_regular_file() && e.path().extension() == ".data")
                files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace strbpf::test_cases
