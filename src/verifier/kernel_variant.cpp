// SPDX-License-Identifier: BSD-2-Clause
// The modelled kernel build's facts (verifier stage): names, parsing and the process-wide default.
#include "verifier/kernel_variant.hpp"
#include "verifier/kernel_variant_tag.hpp"

#include <atomic>

namespace strbpf::verifier {
namespace {

KernelVariant g_default;
std::atomic<bool> g_set{false};

} // namespace

std::string format_kernel_variant(const KernelVariant& v) {
    std::string out;
    for (const KernelVariantFact& f : kKernelVariantFacts)
        if (v.*f.field)
            out += (out.empty() ? "" : ",") + std::string(f.name);
    return out;
}

std::optional<KernelVariant> parse_kernel_variant(std::string_view text, std::string* error) {
    KernelVariant v;
    if (text == "upstream")
        return v;
    while (!text.empty()) {
        const size_t comma = text.find(',');
        const std::string_view name = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
        if (name.empty())
            continue;
        bool known = false;
        for (const KernelVariantFact& f : kKernelVariantFacts)
            if (name == f.name) {
                v.*f.field = true;
                known = true;
            }
        if (!known) {
            if (error) {
                *error = "unknown kernel variant fact '" + std::string(name) + "' (known: upstream";
                for (const KernelVariantFact& f : kKernelVariantFacts)
                    *error += std::string(", ") + f.name;
                *error += ")";
            }
            return std::nullopt;
        }
    }
    return v;
}

std::optional<std::vector<KernelVariantNeed>> parse_kernel_variant_tag(std::string_view text, std::string* error) {
    std::vector<KernelVariantNeed> needs;
    while (!text.empty()) {
        const size_t comma = text.find(',');
        std::string_view name = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
        KernelVariantNeed need;
        if (!name.empty() && name.front() == '!') {
            need.set = false;
            name.remove_prefix(1);
        }
        for (const KernelVariantFact& f : kKernelVariantFacts)
            if (name == f.name)
                need.fact = &f;
        if (!need.fact) {
            if (error)
                *error = "__kernel_variant names no fact '" + std::string(name) + "'";
            return std::nullopt;
        }
        needs.push_back(need);
    }
    return needs;
}

KernelVariant kernel_variant_for(const std::vector<KernelVariantNeed>& needs) {
    KernelVariant v;
    for (const KernelVariantNeed& n : needs)
        v.*n.fact->field = n.set;
    return v;
}

const KernelVariant& default_kernel_variant() {
    static const KernelVariant kUpstream;
    return g_set.load(std::memory_order_acquire) ? g_default : kUpstream;
}

void set_default_kernel_variant(const KernelVariant& v) {
    g_default = v;
    g_set.store(true, std::memory_order_release);
}

} // namespace strbpf::verifier
