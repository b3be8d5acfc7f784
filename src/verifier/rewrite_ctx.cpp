// SPDX-License-Identifier: BSD-2-Clause
// Context access conversion (verifier stage): each xdp_md / __sk_buff / bpf_sk_lookup load or store the walk
// accepted becomes
// loads and stores on strbpf's ctx models, from the field table of runtime/ctx_model.hpp, with the kernel's
// convert_ctx_accesses rules: a load narrower than a field whose size the type records loads the whole field and
// shifts and masks only when the access is narrower than what the conversion loads (so every byte of pkt_type's
// word reads pkt_type, the upper half of protocol reads protocol); sign-extending loads end with a movsx; a
// queue_mapping store of NO_QUEUE_MAPPING or more does nothing.
#include "verifier/rewrite.hpp"

namespace strbpf::verifier {
namespace {

using runtime::CtxConv;
using runtime::CtxField;
using namespace isa;

uint8_t size_code(int bytes) { return bytes == 1 ? BPF_B : bytes == 2 ? BPF_H : bytes == 4 ? BPF_W : BPF_DW; }
int size_bytes(uint8_t opcode) {
    const uint8_t s = opcode & 0x18;
    return s == BPF_B ? 1 : s == BPF_H ? 2 : s == BPF_W ? 4 : 8;
}
Insn make(uint8_t opcode, int dst, int src, int32_t off, int32_t imm) {
    Insn i{};
    i.opcode = opcode;
    i.dst = uint8_t(dst) & 0xf;
    i.src = uint8_t(src) & 0xf;
    i.off = int16_t(off);
    i.imm = imm;
    return i;
}

void convert_load(const CtxField& f, const Insn& in, int size, bool sx, std::vector<Insn>* out) {
    const int dst = in.dst, src = in.src, off = in.off;
    if (f.conv == CtxConv::array) {
        out->push_back(make(BPF_LDX | BPF_MEM | size_code(size), dst, src, f.model_off + (off - f.uapi_off), 0));
    } else {
        const bool narrow = f.narrow && size < f.narrow;
        if (f.conv == CtxConv::zero)
            out->push_back(make(BPF_ALU | BPF_MOV | BPF_K, dst, 0, 0, 0));
        else
            out->push_back(make(BPF_LDX | BPF_MEM | size_code(f.target_size), dst, src, f.model_off, 0));
        if (f.conv == CtxConv::vlan_present) {
            out->push_back(make(BPF_JMP | BPF_JEQ | BPF_K, dst, 0, 1, 0));
            out->push_back(make(BPF_ALU | BPF_MOV | BPF_K, dst, 0, 0, 1));
        } else if (f.conv == CtxConv::lsh16) {
            out->push_back(make(BPF_ALU | BPF_LSH | BPF_K, dst, 0, 0, 16));
        }
        if (narrow && size < f.target_size) {
            if (const int shift = (off & (f.narrow - 1)) * 8)
                out->push_back(make(BPF_ALU | BPF_RSH | BPF_K, dst, 0, 0, shift));
            out->push_back(make(BPF_ALU | BPF_AND | BPF_K, dst, 0, 0, int32_t((1u << (size * 8)) - 1)));
        }
    }
    if (sx)
        out->push_back(make(BPF_ALU64 | BPF_MOV | BPF_X, dst, dst, size * 8, 0));
}

bool convert_store(const CtxField& f, const Insn& in, int size, std::vector<Insn>* out) {
    const uint8_t cls = insn_class(in.opcode); // BPF_ST (imm) or BPF_STX (src register)
    if (f.conv == CtxConv::array) {
        out->push_back(make(cls | BPF_MEM | size_code(size), in.dst, in.src, f.model_off + (in.off - f.uapi_off),
                            in.imm));
        return true;
    }
    if (in.off != f.uapi_off || size != f.uapi_size)
        return false;
    if (f.conv == CtxConv::queue_mapping) {
        if (cls == BPF_ST && in.imm >= 0xffff) { // NO_QUEUE_MAPPING: the store is dropped
            out->push_back(make(BPF_JMP | BPF_JA, 0, 0, 0, 0));
            return true;
        }
        if (cls == BPF_STX)
            out->push_back(make(BPF_JMP | BPF_JGE | BPF_K, in.src, 0, 1, 0xffff));
    }
    out->push_back(make(cls | BPF_MEM | size_code(f.target_size), in.dst, in.src, f.model_off, in.imm));
    return true;
}

} // namespace

runtime::CtxModel ctx_model_of(loader::ProgType type) {
    using loader::ProgType;
    switch (type) {
    case ProgType::xdp: return runtime::CtxModel::xdp;
    case ProgType::socket_filter:
    case ProgType::sched_cls:
    case ProgType::sched_act:
    case ProgType::cgroup_skb:
    case ProgType::lwt_in:
    case ProgType::lwt_out:
    case ProgType::lwt_xmit:
    case ProgType::lwt_seg6local:
    case ProgType::sk_skb: return runtime::CtxModel::skb;
    case ProgType::flow_dissector: return runtime::CtxModel::flow_dissector;
    case ProgType::sk_lookup: return runtime::CtxModel::sk_lookup;
    default: return runtime::CtxModel::none;
    }
}

bool convert_ctx_access(runtime::CtxModel model, const isa::Insn& in, Patch* out) {
    const CtxField* f = runtime::find_ctx_field(model, in.off);
    const uint8_t cls = insn_class(in.opcode);
    const int size = size_bytes(in.opcode);
    if (!f)
        return false;
    out->origin = InsnOrigin::ctx_access;
    if (cls == BPF_LDX) {
        if (!runtime::ctx_load_fits(*f, in.off, size))
            return false;
        convert_load(*f, in, size, (in.opcode & 0xe0) == BPF_MEMSX, &out->insns);
        return true;
    }
    if (in.off + size > f->uapi_off + f->uapi_size)
        return false;
    return convert_store(*f, in, size, &out->insns);
}

} // namespace strbpf::verifier
