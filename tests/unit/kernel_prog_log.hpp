// SPDX-License-Identifier: BSD-2-Clause
// Loading one program of a BPF object into the live kernel through libbpf, with its verifier log (tests): the
// other programs of the object are not autoloaded, as in the kernel's test_loader.
#pragma once
#include <string>
#include <vector>

#include <bpf/libbpf.h>

namespace strbpf::testing_support {

struct KernelLoad {
    bool opened = false;   // libbpf opened the object
    bool rejected = false; // the load failed (the verifier's, or libbpf's before it)
    std::string log;       // the verifier log at the requested level
};

inline KernelLoad kernel_load_program(const std::string& path, const std::string& prog, int log_level,
                                      size_t log_size) {
    KernelLoad out;
    bpf_object* obj = bpf_object__open_file(path.c_str(), nullptr);
    if (!obj)
        return out;
    out.opened = true;
    std::vector<char> log(log_size);
    bpf_program* p = nullptr;
    bpf_object__for_each_program(p, obj) {
        const bool mine = prog == bpf_program__name(p);
        bpf_program__set_autoload(p, mine);
        if (mine) {
            bpf_program__set_log_buf(p, log.data(), log.size());
            bpf_program__set_log_level(p, log_level);
        }
    }
    out.rejected = bpf_object__load(obj) != 0;
    bpf_object__close(obj);
    out.log = log.data();
    return out;
}

} // namespace strbpf::testing_support
