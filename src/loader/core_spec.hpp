// SPDX-License-Identifier: BSD-2-Clause
// CO-RE access specifications (loader stage, internal to core_*.cpp): an access string parsed against the local
// BTF, matched against a target type, and the type compatibility rules libbpf applies while matching.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "loader/btf_view.hpp"
#include "strbpf/result.hpp"

struct btf;
struct btf_type;

namespace strbpf::loader::core {

// One semantically meaningful step: a named member (name set) or an array index (name null). The first step is
// the index applied to the root pointer.
struct Accessor {
    uint32_t type_id = 0; // the composite holding the member, or the element type for an index
    uint32_t idx = 0;
    const char* name = nullptr;
};

struct Spec {
    BtfRef btf = nullptr;
    uint32_t root = 0;
    uint32_t kind = 0;
    std::vector<Accessor> acc;
    std::vector<uint32_t> raw; // every access-string step, anonymous members included
    uint32_t bit_offset = 0;
};

inline constexpr size_t kMaxSpecLen = 64; // BPF_CORE_SPEC_MAX_LEN

bool field_based(uint32_t kind);
bool type_based(uint32_t kind);
bool enumval_based(uint32_t kind);

const btf_type* skip_mods(BtfRef b, uint32_t id, uint32_t* out_id);
// btf_kind_core_compat: the same kind, or enum and enum64.
bool kinds_compat(const btf_type* a, const btf_type* b);
bool names_match(const char* local, const char* target); // essential names equal

// bpf_core_parse_spec; the error is libbpf's errno-style code.
Result<Spec> parse_spec(BtfRef b, uint32_t type_id, const std::string& access, uint32_t kind);
// bpf_core_spec_match: 1 matched (out filled), 0 not, an error for malformed BTF.
Result<int> match_spec(const Spec& local, BtfRef targ, uint32_t targ_id, Spec* out);
// bpf_core_format_spec.
std::string format_spec(const Spec& s);

// bpf_core_types_are_compat (TYPE_EXISTS, TYPE_SIZE, TYPE_ID_TARGET) and bpf_core_types_match (TYPE_MATCHES).
int types_are_compat(BtfRef lb, uint32_t lid, BtfRef tb, uint32_t tid, int level = 2);
int types_match(BtfRef lb, uint32_t lid, BtfRef tb, uint32_t tid, bool behind_ptr = false,
                int level = 32);

} // namespace strbpf::loader::core
