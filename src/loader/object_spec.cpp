// ObjectSpec look-ups (loader stage).
#include "loader/object_spec.hpp"

namespace strbpf::loader {

const ProgramSpec* ObjectSpec::find_program(const std::string& name) const {
    for (const auto& p : programs)
        if (p.name == name)
            return &p;
    return nullptr;
}

int ObjectSpec::find_map(const std::string& name) const {
    for (size_t i = 0; i < maps.size(); i++)
        if (maps[i].name == name)
            return int(i);
    return -1;
}

const char* prog_type_name(ProgType t) {
    switch (t) {
    case ProgType::unspec: return "unspec";
    case ProgType::socket_filter: return "socket_filter";
    case ProgType::kprobe: return "kprobe";
    case ProgType::sched_cls: return "sched_cls";
    case ProgType::sched_act: return "sched_act";
    case ProgType::tracepoint: return "tracepoint";
    case ProgType::xdp: return "xdp";
    case ProgType::perf_event: return "perf_event";
    case ProgType::raw_tracepoint: return "raw_tracepoint";
    case ProgType::syscall: return "syscall";
    }
    return "unknown";
}

} // namespace strbpf::loader
