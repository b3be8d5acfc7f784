// SPDX-License-Identifier: BSD-2-Clause
// Engine names (exec stage).
#include "exec/engine.hpp"

namespace strbpf::exec {

const char* engine_name(EngineKind k) {
    switch (k) {
    case EngineKind::interp: return "interp";
    case EngineKind::jit: return "jit";
    case EngineKind::kernel: return "kernel";
    case EngineKind::interp_checked: return "interp-checked";
    }
    return "?";
}

bool parse_engine(const std::string& s, EngineKind* out) {
    if (s == "interp" || s == "interpreter")
        *out = EngineKind::interp;
    else if (s == "jit")
        *out = EngineKind::jit;
    else if (s == "interp-checked")
        *out = EngineKind::interp_checked;
    else if (s == "kernel")
        *out = EngineKind::kernel;
    else
        return false;
    return true;
}

} // namespace strbpf::exec
