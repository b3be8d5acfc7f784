// SPDX-License-Identifier: BSD-2-Clause
// BPF CO-RE relocations (loader stage): the value each relocation kind computes for the local and the target
// type, the candidates of the target, the agreement every matching candidate must reach, and the patch.
#include "loader/core_relo.hpp"

#include <bpf/btf.h>
#include <fmt/format.h>

#include <cerrno>
#include <climits>

#include "loader/btf_view.hpp"
#include "loader/core_spec.hpp"
#include "loader/externs.hpp"

namespace strbpf::loader {
namespace {

using core::Spec;

constexpr int kPoison = -EUCLEAN; // a value the target cannot give: poison the instruction

struct Value {
    uint64_t v = 0;
    uint32_t size = 0;    // the memory access size a load/store of the field has (0: not a load/store field)
    uint32_t type_id = 0; // the field's type (for the size change rules)
};

// The element size of a (possibly multi-dimensional) array field, or the field's own size.
int64_t elem_size(BtfRef b, uint32_t id, uint32_t* elem) {
    const btf_type* t = core::skip_mods(b, id, elem);
    while (t && btf_is_array(t))
        t = core::skip_mods(b, btf_array(t)->type, elem);
    return btfv::resolve_size(b, *elem);
}

// The last step is an array element: only its offset and size can be relocated.
int field_of_element(const Spec& s, uint32_t kind, Value* out, bool* validate) {
    const core::Accessor& acc = s.acc.back();
    uint32_t elem = 0;
    if (kind == kCoreFieldByteOffset) {
        out->v = s.bit_offset / 8;
        const int64_t sz = elem_size(s.btf, acc.type_id, &elem);
        if (sz < 0)
            return -EINVAL;
        out->size = uint32_t(sz);
        out->type_id = acc.type_id;
    } else if (kind == kCoreFieldByteSize) {
        const int64_t sz = btfv::resolve_size(s.btf, acc.type_id);
        if (sz < 0)
            return -EINVAL;
        out->v = uint64_t(sz);
    } else {
        return -EINVAL; // "can't be applied to array access"
    }
    if (validate)
        *validate = true;
    return 0;
}

// bpf_core_calc_field_relo. `s` null: the target has no such field.
int calc_field(const Spec* s, uint32_t kind, Value* out, bool* validate) {
    if (kind == kCoreFieldExists) {
        out->v = s ? 1 : 0;
        return 0;
    }
    if (!s)
        return kPoison;
    const core::Accessor& acc = s->acc.back();
    if (!acc.name)
        return field_of_element(*s, kind, out, validate);
    const btf_type* holder = btfv::type_by_id(s->btf, acc.type_id);
    uint32_t ftype = 0;
    const btf_type* mt = core::skip_mods(s->btf, btf_members(holder)[acc.idx].type, &ftype);
    const uint32_t bit_off = s->bit_offset;
    uint32_t bit_sz = btf_member_bitfield_size(holder, acc.idx);
    const bool bitfield = bit_sz > 0;
    uint32_t byte_sz = 0, byte_off = 0;
    if (bitfield) { // the smallest naturally aligned load holding every bit
        byte_sz = mt->size;
        byte_off = bit_off / 8 / byte_sz * byte_sz;
        while (bit_off + bit_sz - byte_off * 8 > byte_sz * 8) {
            if (byte_sz >= 8)
                return -E2BIG;
            byte_sz *= 2;
            byte_off = bit_off / 8 / byte_sz * byte_sz;
        }
    } else {
        const int64_t sz = btfv::resolve_size(s->btf, ftype);
        if (sz < 0)
            return -EINVAL;
        byte_sz = uint32_t(sz);
        byte_off = bit_off / 8;
        bit_sz = byte_sz * 8;
    }
    if (validate)
        *validate = !bitfield;
    switch (kind) {
    case kCoreFieldByteOffset:
        out->v = byte_off;
        if (!bitfield) {
            uint32_t elem = 0;
            const int64_t sz = elem_size(s->btf, ftype, &elem);
            if (sz < 0)
                return -EINVAL;
            out->size = uint32_t(sz);
            out->type_id = ftype;
        }
        return 0;
    case kCoreFieldByteSize:
        out->v = byte_sz;
        return 0;
    case kCoreFieldSigned:
        out->v = (btf_is_any_enum(mt) && btf_kflag(mt)) || (btf_is_int(mt) && (btf_int_encoding(mt) & BTF_INT_SIGNED));
        if (validate)
            *validate = true;
        return 0;
    case kCoreFieldLshiftU64:
        out->v = 64 - (bit_off + bit_sz - byte_off * 8);
        return 0; // little-endian
    case kCoreFieldRshiftU64:
        out->v = 64 - bit_sz;
        if (validate)
            *validate = true;
        return 0;
    default:
        return -EOPNOTSUPP;
    }
}

int calc_type(const Spec* s, uint32_t kind, Value* out, bool* validate) {
    if (validate)
        *validate = true;
    if (!s) {
        out->v = 0;
        return kind == kCoreTypeExists || kind == kCoreTypeMatches ? 0 : kPoison;
    }
    switch (kind) {
    case kCoreTypeIdTarget:
        out->v = s->root;
        if (validate)
            *validate = false;
        return 0;
    case kCoreTypeExists:
    case kCoreTypeMatches:
        out->v = 1;
        return 0;
    case kCoreTypeSize: {
        const int64_t sz = btfv::resolve_size(s->btf, s->root);
        if (sz < 0)
            return -EINVAL;
        out->v = uint64_t(sz);
        return 0;
    }
    default:
        return -EOPNOTSUPP;
    }
}

int calc_enumval(const Spec* s, uint32_t kind, Value* out) {
    if (kind == kCoreEnumvalExists) {
        out->v = s ? 1 : 0;
        return 0;
    }
    if (!s)
        return kPoison;
    const btf_type* t = btfv::type_by_id(s->btf, s->acc[0].type_id);
    const uint32_t i = s->acc[0].idx;
    // btf_enum's value is an s32: widened with its sign, as libbpf widens it
    out->v = btf_is_enum(t) ? uint64_t(int64_t(int32_t(btf_enum(t)[i].val))) : btf_enum64_value(btf_enum64(t) + i);
    return 0;
}

// bpf_core_calc_relo: the local value and the target's (targ null: no candidate matched).
int calc(const Spec& local, const Spec* targ, uint32_t kind, CoreResult* res) {
    Value o, n;
    int err = -EOPNOTSUPP;
    res->validate = true;
    if (core::field_based(kind)) {
        err = calc_field(&local, kind, &o, &res->validate);
        err = err ? err : calc_field(targ, kind, &n, nullptr);
        if (!err && o.size != n.size) {
            const btf_type* ot = btfv::type_by_id(local.btf, o.type_id);
            const btf_type* nt = btfv::type_by_id(targ->btf, n.type_id);
            const bool both_ptr = btf_is_ptr(ot) && btf_is_ptr(nt);
            const bool both_unsigned = btf_is_int(ot) && btf_is_int(nt) && btf_int_encoding(ot) != BTF_INT_SIGNED &&
                                       btf_int_encoding(nt) != BTF_INT_SIGNED;
            res->bad_memsz = !both_ptr && !both_unsigned;
        }
    } else if (core::type_based(kind)) {
        err = calc_type(&local, kind, &o, &res->validate);
        err = err ? err : calc_type(targ, kind, &n, nullptr);
    } else if (core::enumval_based(kind)) {
        err = calc_enumval(&local, kind, &o);
        err = err ? err : calc_enumval(targ, kind, &n);
    }
    res->orig = o.v;
    res->value = n.v;
    res->orig_size = o.size;
    res->new_size = n.size;
    if (err == kPoison) {
        res->poison = true;
        return 0;
    }
    return err;
}

// bpf_core_add_cands: every named target type of a compatible kind whose essential name is the local one's.
std::vector<uint32_t> candidates(BtfRef local, uint32_t local_id, BtfRef targ) {
    std::vector<uint32_t> out;
    const btf_type* lt = btfv::type_by_id(local, local_id);
    const std::string_view lname = essential_name(btfv::name_by_offset(local, lt->name_off));
    const uint32_t n = btfv::type_cnt(targ);
    for (uint32_t i = 1; i < n; ++i) {
        const btf_type* t = btfv::type_by_id(targ, i);
        if (!core::kinds_compat(t, lt))
            continue;
        const char* name = btfv::name_by_offset(targ, t->name_off);
        if (name && *name && essential_name(name) == lname)
            out.push_back(i);
    }
    return out;
}

Status fail(const std::string& what, int code) { return make_error(what, code ? code : -EINVAL); }

} // namespace

const char* core_kind_name(uint32_t kind) {
    static const char* const kNames[] = {"byte_off",    "byte_sz",    "field_exists",   "signed",
                                         "lshift_u64",  "rshift_u64", "local_type_id",  "target_type_id",
                                         "type_exists", "type_size",  "enumval_exists", "enumval_value",
                                         "type_matches"};
    return kind < std::size(kNames) ? kNames[kind] : "unknown";
}

Result<CoreResult> core_resolve(BtfRef local, const BtfExtCoreRelo& relo, BtfRef target) {
    const btf_type* lt = btfv::type_by_id(local, relo.type_id);
    const char* access = btfv::name_by_offset(local, relo.access_str_off);
    if (!lt || !access)
        return make_error(fmt::format("bad type id [{}] or access string", relo.type_id), -EINVAL);
    const char* lname = btfv::name_by_offset(local, lt->name_off);
    auto spec = core::parse_spec(local, relo.type_id, access, relo.kind);
    if (!spec)
        return make_error(fmt::format("parsing [{}] {} + {} failed: {}", relo.type_id,
                                      lname && *lname ? lname : "<anon>", access, spec.error().code),
                          -EINVAL);
    CoreResult res;
    res.spec = core::format_spec(*spec);
    if (relo.kind == kCoreTypeIdLocal) {
        res.validate = false;
        res.orig = res.value = relo.type_id;
        return res;
    }
    if (!lname || !*lname)
        return make_error(
            fmt::format("<{}> ({}) relocation doesn't support anonymous types", core_kind_name(relo.kind), relo.kind),
            -EOPNOTSUPP);
    if (!target)
        return make_error("no target BTF", -EINVAL);
    bool found = false;
    uint32_t bit_offset = 0;
    for (uint32_t cand : candidates(local, relo.type_id, target)) {
        core::Spec ts;
        auto m = core::match_spec(*spec, target, cand, &ts);
        if (!m)
            return make_error(fmt::format("error matching candidate [{}]: {}", cand, m.error().code), m.error().code);
        if (*m == 0)
            continue;
        CoreResult cr;
        cr.spec = res.spec;
        if (int err = calc(*spec, &ts, relo.kind, &cr))
            return make_error(fmt::format("{}: cannot be computed: {}", res.spec, err), err);
        if (!found) {
            res = cr;
            bit_offset = ts.bit_offset;
            found = true;
        } else if (ts.bit_offset != bit_offset) {
            return make_error(fmt::format("field offset ambiguity: {} != {}", ts.bit_offset, bit_offset), -EINVAL);
        } else if (cr.poison != res.poison || cr.value != res.value) {
            return make_error(fmt::format("relocation decision ambiguity: {} {} != {} {}",
                                          cr.poison ? "failure" : "success", cr.value,
                                          res.poison ? "failure" : "success", res.value),
                              -EINVAL);
        }
    }
    if (!found)
        if (int err = calc(*spec, nullptr, relo.kind, &res))
            return make_error(fmt::format("{}: cannot be computed: {}", res.spec, err), err);
    return res;
}

namespace {

void poison_insn(isa::Insn& in) { in = isa::Insn{isa::BPF_JMP | isa::BPF_CALL, 0, 0, 0, kCorePoisonHelper}; }

int size_bytes(uint8_t opcode) {
    switch (opcode & 0x18) {
    case isa::BPF_B:
        return 1;
    case isa::BPF_H:
        return 2;
    case isa::BPF_W:
        return 4;
    default:
        return 8;
    }
}

int size_code(uint32_t bytes) {
    switch (bytes) {
    case 1:
        return isa::BPF_B;
    case 2:
        return isa::BPF_H;
    case 4:
        return isa::BPF_W;
    case 8:
        return isa::BPF_DW;
    default:
        return -1;
    }
}

Status patch_mem(isa::Insn& in, const CoreResult& res) {
    if (res.validate && uint64_t(int64_t(in.off)) != res.orig)
        return fail(
            fmt::format("unexpected insn (LDX/ST/STX) value: got {}, exp {} -> {}", in.off, res.orig, res.value),
            -EINVAL);
    if (res.value > uint64_t(SHRT_MAX))
        return fail(fmt::format("insn (LDX/ST/STX) value too big: {}", res.value), -ERANGE);
    in.off = int16_t(res.value);
    if (res.new_size == res.orig_size)
        return ok_status();
    if (size_bytes(in.opcode) != int(res.orig_size))
        return fail(
            fmt::format("insn (LDX/ST/STX) unexpected mem size: got {}, exp {}", size_bytes(in.opcode), res.orig_size),
            -EINVAL);
    const int code = size_code(res.new_size);
    if (code < 0)
        return fail(fmt::format("insn (LDX/ST/STX) invalid new mem size: {}", res.new_size), -EINVAL);
    in.opcode = uint8_t((in.opcode & ~0x18) | code);
    return ok_status();
}

} // namespace

Status core_patch(std::span<isa::Insn> insn, const CoreResult& res) {
    isa::Insn& in = insn[0];
    const uint8_t cls = in.opcode & 0x07;
    const bool ld_imm64 = isa::is_ld_imm64(in) && insn.size() > 1;
    const bool mem = cls == isa::BPF_LDX || cls == isa::BPF_ST || cls == isa::BPF_STX;
    if (res.poison || (mem && res.bad_memsz)) {
        if (ld_imm64)
            poison_insn(insn[1]);
        poison_insn(in);
        return ok_status();
    }
    if (cls == isa::BPF_ALU || cls == isa::BPF_ALU64) {
        if (in.opcode & isa::BPF_X)
            return fail("ALU relocation of a register operand", -EINVAL);
        if (res.validate && uint64_t(int64_t(in.imm)) != res.orig)
            return fail(
                fmt::format("unexpected insn (ALU/ALU64) value: got {}, exp {} -> {}", in.imm, res.orig, res.value),
                -EINVAL);
        in.imm = int32_t(res.value);
        return ok_status();
    }
    if (mem)
        return patch_mem(in, res);
    if (ld_imm64 && in.src == 0 && in.off == 0 && insn[1].opcode == 0 && insn[1].dst == 0 && insn[1].src == 0 &&
        insn[1].off == 0) {
        const uint64_t imm = uint64_t(uint32_t(in.imm)) | (uint64_t(uint32_t(insn[1].imm)) << 32);
        if (res.validate && imm != res.orig)
            return fail(fmt::format("unexpected insn (LDIMM64) value: got {}, exp {} -> {}", imm, res.orig, res.value),
                        -EINVAL);
        in.imm = int32_t(uint32_t(res.value));
        insn[1].imm = int32_t(uint32_t(res.value >> 32));
        return ok_status();
    }
    return fail(fmt::format("trying to relocate unrecognized insn, code:{:#x}", in.opcode), -EINVAL);
}

} // namespace strbpf::loader
