// SPDX-License-Identifier: BSD-2-Clause
// What the tests of callbacks that run later (timer_fire_test, wq_fire_test) compare: an object's 8-byte globals by
// name, read from strbpf's Object and from the live kernel's copy of the same object (libbpf), whose global-data
// maps hold each variable at the section and offset strbpf's Object names.
#pragma once
#include <cstdint>
#include <cstring>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "strbpf/object.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

namespace strbpf::test {

struct Globals {
    std::vector<int64_t> v; // the variables' values, in the order asked
    std::vector<std::string> names;
    bool operator==(const Globals& o) const { return v == o.v; }
};
inline void PrintTo(const Globals& g, std::ostream* os) {
    for (size_t i = 0; i < g.v.size(); i++)
        *os << (i ? " " : "") << (i < g.names.size() ? g.names[i] : "?") << "=" << g.v[i];
}

// VARS' values in strbpf's Object (0 for a variable it lacks or of another size).
inline Globals read_globals(const Object& obj, std::span<const char* const> vars) {
    Globals g;
    for (const char* var : vars) {
        auto bytes = obj.global(var);
        int64_t x = 0;
        if (bytes.ok() && bytes->size() == sizeof x)
            std::memcpy(&x, bytes->data(), sizeof x);
        g.v.push_back(x);
        g.names.emplace_back(var);
    }
    return g;
}

// The globals of KOBJ, a libbpf object loaded from PATH, read from the kernel's global-data maps now.
class KernelGlobals {
  public:
    KernelGlobals(bpf_object* kobj, const std::string& path) : kobj_(kobj), ours_(Object::open(path)) {}
    int64_t read(const char* var) const {
        int64_t x = 0;
        if (!ours_.ok())
            return x;
        auto info = ours_->global_info(var);
        bpf_map* m = info.ok() ? bpf_object__find_map_by_name(kobj_, info->section.c_str()) : nullptr;
        if (!m)
            return x;
        std::vector<uint8_t> data(bpf_map__value_size(m));
        const uint32_t zero = 0;
        if (bpf_map_lookup_elem(bpf_map__fd(m), &zero, data.data()) == 0 && info->offset + sizeof x <= data.size())
            std::memcpy(&x, data.data() + info->offset, sizeof x);
        return x;
    }
    Globals read_all(std::span<const char* const> vars) const {
        Globals g;
        for (const char* var : vars) {
            g.v.push_back(read(var));
            g.names.emplace_back(var);
        }
        return g;
    }

  private:
    bpf_object* kobj_;
    Result<Object> ours_; // the same object: each variable's section and offset
};

} // namespace strbpf::test
