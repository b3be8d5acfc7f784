// SPDX-License-Identifier: BSD-2-Clause
// bpf_snprintf (165) and the format rules of the kernel's printf-like helpers (runtime stage).
// A format is printable ASCII and whitespace up to its NUL, with conversions %[0 +-]*[width] followed by
//   d i u x X with an optional l or ll (int, long, long long), c, s (a kernel string: program-visible memory),
//   px (a pointer: 16 hex digits), p and pK (the kernel hashes the pointer into 32 bits printed as 16 digits;
//   strbpf prints its low 32 bits so; NULL and error pointers print unhashed), ps pS pB (symbols: strbpf knows no kernel symbols, so they print 0x and
//   the address in hex, as the kernel prints an address that is no symbol), pks pus (kernel and user strings; strbpf's user reads all fault: ""),
//   pi4 pI4 pi6 pI6 (IPv4 / IPv6 addresses read from memory; zeros where the read faults), %%.
// %s and %pks/%pus must be followed by the end, whitespace or punctuation; so must a bare %p. There are at most
// as many conversions as arguments. Every argument's bytes (4 for int and %c 1, 8 for long, a string's
// characters and NUL, an address's text and NUL) go into a 512-byte buffer (MAX_BPRINTF_BIN_ARGS), as the
// kernel's bpf_bprintf_prepare copies them: a string truncated where the buffer ends, -ENOSPC for a conversion
// after the buffer is full.
// bpf_snprintf(str, str_size, fmt, data, data_len): Returns: the length of the whole text plus one (its NUL),
//   having written at most str_size bytes (the text cut to str_size - 1 and a NUL; nothing for str_size 0);
//   -EINVAL (data_len not a multiple of 8 or above 96, data NULL with data_len > 0, a format the rules refuse);
//   -ENOSPC (the argument buffer is full).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/context.hpp"

namespace strbpf::runtime {

constexpr uint32_t kMaxBprintfVarargs = 12; // MAX_BPRINTF_VARARGS

// The verifier's check of a constant format (check_bpf_snprintf_call): 0, or -EINVAL when the rules above refuse
// it with num_args arguments. fmt[0, size) holds a NUL.
int bprintf_check(const char* fmt, size_t size, uint32_t num_args);

// Formats fmt (NUL-terminated within size) with num_args u64 arguments into *out; 0 or a negative errno.
int bprintf_format(const char* fmt, size_t size, const uint64_t* args, uint32_t num_args, RunContext* ctx,
                   std::string* out);

uint64_t bpf_snprintf_helper(uint64_t str, uint64_t str_size, uint64_t fmt, uint64_t data, uint64_t data_len,
                             RunContext* ctx);

} // namespace strbpf::runtime
