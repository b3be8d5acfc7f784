// SPDX-License-Identifier: BSD-2-Clause
// .BTF.ext parsing (loader stage): func_info, line_info and core_relo, every count checked against the bytes
// that remain.
#include "loader/btf_ext.hpp"
#include "loader/btf_view.hpp"

#include <bpf/btf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace strbpf::loader {
namespace {

constexpr uint16_t kBtfMagic = 0xeB9F;
constexpr uint32_t kMinHeaderLen = 24; // magic..line_info_len
constexpr uint32_t kMinFuncRec = 8;    // struct bpf_func_info
constexpr uint32_t kMinLineRec = 16;   // struct bpf_line_info
constexpr uint32_t kCoreHeaderLen = 32; // ... core_relo_off, core_relo_len
constexpr uint32_t kMinCoreRec = 16;    // struct bpf_core_relo

uint32_t read_u32(std::span<const uint8_t> d, size_t off) {
    uint32_t v;
    std::memcpy(&v, d.data() + off, sizeof v);
    return v;
}

// One info block: rec_size, then { sec_name_off, num_info, num_info records } until the block ends.
template <class Fn>
Status walk_block(std::span<const uint8_t> block, const char* what, uint32_t min_rec, BtfRef btf, Fn&& fn) {
    if (block.empty())
        return ok_status();
    if (block.size() < 4)
        return make_error(fmt::format(".BTF.ext {}: block of {} bytes has no record size", what, block.size()));
    uint32_t rec_size = read_u32(block, 0);
    if (rec_size < min_rec || rec_size % 4 != 0 || rec_size > block.size())
        return make_error(fmt::format(".BTF.ext {}: bad record size {}", what, rec_size));
    size_t pos = 4;
    while (pos < block.size()) {
        if (block.size() - pos < 8)
            return make_error(fmt::format(".BTF.ext {}: truncated section header at offset {}", what, pos));
        uint32_t name_off = read_u32(block, pos), num = read_u32(block, pos + 4);
        pos += 8;
        const char* name = btfv::name_by_offset(btf, name_off);
        if (!name || !*name)
            return make_error(
                fmt::format(".BTF.ext {}: section name offset {:#x} is not a BTF string", what, name_off));
        if (num == 0 || uint64_t(num) * rec_size > block.size() - pos)
            return make_error(fmt::format(".BTF.ext {}: section '{}' claims {} records of {} bytes, beyond the block",
                                          what, name, num, rec_size));
        for (uint32_t i = 0; i < num; ++i, pos += rec_size) {
            uint32_t insn_off = read_u32(block, pos);
            if (insn_off % 8 != 0)
                return make_error(fmt::format(".BTF.ext {}: section '{}' record {} has insn_off {:#x} not a multiple "
                                              "of 8",
                                              what, name, i, insn_off));
            fn(std::string(name), insn_off / 8, block, pos);
        }
    }
    return ok_status();
}

Result<std::span<const uint8_t>> block_at(std::span<const uint8_t> data, uint32_t hdr_len, uint32_t off, uint32_t len,
                                          const char* what) {
    uint64_t start = uint64_t(hdr_len) + off;
    if (start > data.size() || len > data.size() - start)
        return make_error(fmt::format(".BTF.ext {}: offset {} + length {} is beyond the {}-byte section", what, off,
                                      len, data.size()));
    return data.subspan(start, len);
}

} // namespace

Result<BtfExt> parse_btf_ext(std::span<const uint8_t> data, BtfRef btf) {
    if (data.size() < kMinHeaderLen)
        return make_error(fmt::format(".BTF.ext: {} bytes is too short for a header", data.size()));
    uint16_t magic;
    std::memcpy(&magic, data.data(), sizeof magic);
    if (magic != kBtfMagic)
        return make_error(fmt::format(".BTF.ext: bad magic {:#x}", magic));
    if (data[2] != 1)
        return make_error(fmt::format(".BTF.ext: unsupported version {}", data[2]));
    uint32_t hdr_len = read_u32(data, 4);
    if (hdr_len < kMinHeaderLen || hdr_len > data.size())
        return make_error(fmt::format(".BTF.ext: bad header length {}", hdr_len));
    if (!btf)
        return make_error(".BTF.ext: present without .BTF");
    auto funcs = block_at(data, hdr_len, read_u32(data, 8), read_u32(data, 12), "func_info");
    STRBPF_TRY(funcs);
    auto lines = block_at(data, hdr_len, read_u32(data, 16), read_u32(data, 20), "line_info");
    STRBPF_TRY(lines);
    std::span<const uint8_t> core;
    if (hdr_len >= kCoreHeaderLen) {
        auto c = block_at(data, hdr_len, read_u32(data, 24), read_u32(data, 28), "core_relo");
        STRBPF_TRY(c);
        core = *c;
    }
    BtfExt out;
    STRBPF_TRY(walk_block(*funcs, "func_info", kMinFuncRec, btf,
                          [&](std::string name, uint32_t insn, std::span<const uint8_t> b, size_t pos) {
                              out[name].funcs.push_back(BtfExtFunc{insn, read_u32(b, pos + 4)});
                          }));
    STRBPF_TRY(walk_block(*lines, "line_info", kMinLineRec, btf,
                          [&](std::string name, uint32_t insn, std::span<const uint8_t> b, size_t pos) {
                              out[name].lines.push_back(
                                  BtfExtLine{insn, read_u32(b, pos + 4), read_u32(b, pos + 8), read_u32(b, pos + 12)});
                          }));
    STRBPF_TRY(walk_block(core, "core_relo", kMinCoreRec, btf,
                          [&](std::string name, uint32_t insn, std::span<const uint8_t> b, size_t pos) {
                              out[name].core.push_back(BtfExtCoreRelo{insn, read_u32(b, pos + 4),
                                                                      read_u32(b, pos + 8), read_u32(b, pos + 12)});
                          }));
    // Sorted, so that each function finds its records by binary search (objects with many functions and lines).
    for (auto& [name, sec] : out)
        std::stable_sort(sec.lines.begin(), sec.lines.end(),
                         [](const BtfExtLine& a, const BtfExtLine& b) { return a.insn < b.insn; });
    return out;
}

} // namespace strbpf::loader
