// SPDX-License-Identifier: BSD-2-Clause
// Routes libbpf's print callback (exec stage, kernel engine): while a LibbpfCapture lives on a thread, libbpf's
// messages from that thread are appended to its string; otherwise they are dropped unless set_verbose(true).
#pragma once
#include <string>

namespace strbpf::exec::kernel {

class LibbpfCapture {
  public:
    LibbpfCapture();
    ~LibbpfCapture();
    LibbpfCapture(const LibbpfCapture&) = delete;
    LibbpfCapture& operator=(const LibbpfCapture&) = delete;

    const std::string& text() const { return text_; }
    // The first warning that says what went wrong, without "libbpf: " and "prog 'x': " prefixes.
    std::string first_error() const;

  private:
    std::string text_;
    std::string* saved_ = nullptr;
};

// "Operation not permitted" for EPERM: strerror, thread-safe.
std::string errno_text(int err);

} // namespace strbpf::exec::kernel
