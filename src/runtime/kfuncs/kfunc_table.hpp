// SPDX-License-Identifier: BSD-2-Clause
// The kfunc table (runtime stage): every kfunc strbpf provides, declared as data with the BTF parameter names
// (and their __ign/__sz/__k/__str suffixes) the kernel's verifier reads.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "runtime/context.hpp"
#include "runtime/kfuncs/call_site.hpp"

namespace strbpf::runtime {

enum class KfuncParamKind : uint8_t {
    ptr,    // a pointer parameter (the name's suffix says how the verifier treats it)
    scalar, // an integer parameter consumed at `size` bytes
};

struct KfuncParam {
    const char* name; // the BTF parameter name, e.g. "s1__ign"
    KfuncParamKind kind;
    uint8_t size;     // C width in bytes: char 1, int 4, size_t / pointers 8
    bool is_signed;
};

struct KfuncProto {
    const char* name;
    HelperFn fn;
    uint8_t nparams;
    std::array<KfuncParam, 5> params;
    uint8_t ret_size; // 4: C int, R0 = (u64)(u32)result
    const char* since; // first kernel version with this kfunc
    const CallSiteEntries* site; // the JIT's call-site entries (call_site.hpp); nullptr: always the generic fn
};

std::span<const KfuncProto> kfunc_table();
const KfuncProto* find_kfunc(std::string_view name);
int kfunc_index(std::string_view name); // -1 when absent

} // namespace strbpf::runtime
