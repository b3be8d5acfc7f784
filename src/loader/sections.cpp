// Program types from SEC() names, as libbpf's section_defs table maps them (loader stage).
#include <string_view>

#include "loader/loader.hpp"

namespace strbpf::loader {
namespace {

// `pattern` ending in '+' matches the exact name or name + "/..."; ending in '/' matches any "name/..."; otherwise
// it must match exactly (libbpf's sec_def_matches).
bool section_matches(std::string_view sec, std::string_view pattern) {
    if (pattern.back() == '/')
        return sec.size() > pattern.size() && sec.substr(0, pattern.size()) == pattern;
    if (pattern.back() == '+') {
        pattern.remove_suffix(1);
        if (sec.substr(0, pattern.size()) != pattern)
            return false;
        return sec.size() == pattern.size() || sec[pattern.size()] == '/';
    }
    return sec == pattern;
}

struct SectionDef {
    const char* pattern;
    ProgType type;
};

constexpr SectionDef kSectionDefs[] = {
    {"socket", ProgType::socket_filter},
    {"kprobe+", ProgType::kprobe},
    {"uprobe+", ProgType::kprobe},
    {"uprobe.s+", ProgType::kprobe},
    {"kretprobe+", ProgType::kprobe},
    {"uretprobe+", ProgType::kprobe},
    {"uretprobe.s+", ProgType::kprobe},
    {"kprobe.multi+", ProgType::kprobe},
    {"kretprobe.multi+", ProgType::kprobe},
    {"ksyscall+", ProgType::kprobe},
    {"kretsyscall+", ProgType::kprobe},
    {"usdt+", ProgType::kprobe},
    {"tc+", ProgType::sched_cls},
    {"tcx/", ProgType::sched_cls},
    {"classifier", ProgType::sched_cls},
    {"action", ProgType::sched_act},
    {"tracepoint+", ProgType::tracepoint},
    {"tp+", ProgType::tracepoint},
    {"raw_tracepoint+", ProgType::raw_tracepoint},
    {"raw_tp+", ProgType::raw_tracepoint},
    {"xdp.frags/devmap", ProgType::xdp},
    {"xdp/devmap", ProgType::xdp},
    {"xdp.frags/cpumap", ProgType::xdp},
    {"xdp/cpumap", ProgType::xdp},
    {"xdp.frags", ProgType::xdp},
    {"xdp", ProgType::xdp},
    {"perf_event", ProgType::perf_event},
    {"syscall", ProgType::syscall},
};

} // namespace

bool prog_type_from_section(const std::string& section, ProgType* type) {
    std::string_view sec = section;
    if (!sec.empty() && sec.front() == '?')
        sec.remove_prefix(1);
    for (const SectionDef& d : kSectionDefs) {
        if (section_matches(sec, d.pattern)) {
            *type = d.type;
            return true;
        }
    }
    return false;
}

} // namespace strbpf::loader
