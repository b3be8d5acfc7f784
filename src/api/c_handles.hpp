// SPDX-License-Identifier: BSD-2-Clause
// What the C API's opaque handles hold (api stage), and its error convention: a negative errno returned, the
// message kept per thread for strbpf_last_error().
#pragma once
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "strbpf/object.hpp"
#include "strbpf/strbpf.h"

struct strbpf_program {
    strbpf::ProgramRef ref;
};
struct strbpf_map {
    strbpf::MapRef ref;
};
struct strbpf_object {
    strbpf::Object obj;
    std::map<std::string, std::unique_ptr<strbpf_program>> progs;
    std::map<std::string, std::unique_ptr<strbpf_map>> maps;
    strbpf_log_fn log = nullptr;
    void* log_user = nullptr;
};
struct strbpf_runner {
    strbpf::Runner runner;
    uint64_t discard = 0; // r0 of runs given no place for it, so strbpf_runner_run needs no stack slot
};
struct strbpf_extensions {
    strbpf::Extensions ext;
};

namespace strbpf::capi {

inline thread_local std::string last_error;

inline int fail(const strbpf::Error& e) {
    last_error = e.message;
    return e.code < 0 ? e.code : -EINVAL;
}
inline int fail(const char* msg, int code = -EINVAL) {
    last_error = msg;
    return code;
}
inline int fail(const std::string& msg, int code = -EINVAL) {
    last_error = msg;
    return code;
}
template <class T> int status(const strbpf::Result<T>& r) { return r.ok() ? 0 : fail(r.error()); }

// Options structs carry their size first: fields beyond what the caller's version knows read as zero.
template <class T> T read_opts(const T* in) {
    T out{};
    if (in)
        std::memcpy(&out, in, in->sz < sizeof(T) ? in->sz : sizeof(T));
    out.sz = sizeof(T);
    return out;
}

} // namespace strbpf::capi
