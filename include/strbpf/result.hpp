// SPDX-License-Identifier: BSD-2-Clause
// Result<T>: the error-plus-position value every layer returns; nothing throws across include/.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace strbpf {

// code: a negative errno; make_error() defaults to -EINVAL (-22), a default-constructed Error holds -1.
// pc: the instruction index the error is about, -1 when none.
struct Error {
    int code = -1;
    std::string message;
    int64_t pc = -1;
};

inline Error make_error(std::string message, int code = -22, int64_t pc = -1) {
    return Error{code, std::move(message), pc};
}

template <class T> class [[nodiscard]] Result {
  public:
    Result(T value) : v_(std::move(value)) {}
    Result(Error error) : v_(std::move(error)) {}
    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() & { return std::get<0>(v_); }
    const T& value() const& { return std::get<0>(v_); }
    T&& value() && { return std::get<0>(std::move(v_)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T&& operator*() && { return std::move(*this).value(); }
    const Error& error() const { return std::get<1>(v_); }

  private:
    std::variant<T, Error> v_;
};

struct Ok {};
using Status = Result<Ok>;
inline Status ok_status() { return Ok{}; }

} // namespace strbpf

// Propagates an error from an expression returning Result<...>: STRBPF_TRY(status_expr);
#define STRBPF_TRY(expr)                                                                                               \
    do {                                                                                                               \
        auto&& strbpf_try_r_ = (expr);                                                                                 \
        if (!strbpf_try_r_.ok())                                                                                       \
            return strbpf_try_r_.error();                                                                              \
    } while (0)
