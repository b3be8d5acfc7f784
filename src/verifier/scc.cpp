// SPDX-License-Identifier: BSD-2-Clause
// The strongly connected components of the insn graph where they decide a verdict (verifier stage): env.hpp says
// which part of Linux 6.18's SCC bookkeeping strbpf models and why.
#include <fmt/format.h>

#include "verifier/env.hpp"

namespace strbpf::verifier {
namespace {

// compute_scc_callchain: the callsites of the frames below the first one whose insn (the top frame's current insn,
// each lower frame's call) is in a component, then that component; empty when none is.
std::vector<int32_t> callchain(const Env& env) {
    const State& st = env.path.cur;
    std::vector<int32_t> chain;
    for (size_t i = 0; i < st.frames.size(); i++) {
        const int32_t insn = i + 1 == st.frames.size() ? env.path.pc : st.frames[i + 1].callsite;
        const uint32_t scc = insn >= 0 && size_t(insn) < env.facts.insn_scc.size() ? env.facts.insn_scc[size_t(insn)] : 0;
        if (scc) {
            chain.push_back(int32_t(scc));
            return chain;
        }
        if (i + 1 == st.frames.size())
            return {};
        chain.push_back(insn);
    }
    return {};
}

} // namespace

void note_scc_checkpoint(Env& env) {
    if (env.facts.insn_scc.empty())
        return;
    if (std::vector<int32_t> chain = callchain(env); !chain.empty())
        env.aux.scc_visits.insert(std::move(chain)); // maybe_enter_scc
}

bool check_throw_scc_exit(Env& env) {
    if (env.facts.insn_scc.empty())
        return true;
    const std::vector<int32_t> chain = callchain(env);
    if (chain.empty() || env.aux.scc_visits.count(chain))
        return true;
    std::string text; // format_callchain: each callsite, then the component, in parentheses
    for (int32_t v : chain)
        text += fmt::format("({})", v);
    return env.fail(fmt::format("verifier bug: scc exit: no visit info for call chain {}", text));
}

} // namespace strbpf::verifier
