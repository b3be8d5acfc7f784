// SPDX-License-Identifier: BSD-2-Clause
// For unit tests of test runs: the errno a failed run's message names, as the kernel engine's strerror text or
// strbpf's "-EX" ("(the kernel answers -EX)"); 0 when it names none of these.
#pragma once
#include <string>

namespace strbpf::testing_support {

inline int run_errno(const std::string& error) {
    static const struct {
        int err;
        const char *name, *text;
    } kNames[] = {{22, "-EINVAL", "Invalid argument"},
                  {7, "-E2BIG", "Argument list too long"},
                  {12, "-ENOMEM", "Cannot allocate memory"},
                  {6, "-ENXIO", "No such device or address"}, // before -ENODEV, whose text begins it
                  {19, "-ENODEV", "No such device"},
                  {28, "-ENOSPC", "No space left on device"},
                  {34, "-ERANGE", "Numerical result out of range"},
                  {97, "-EAFNOSUPPORT", "Address family not supported by protocol"},
                  {71, "-EPROTO", "Protocol error"},
                  {14, "-EFAULT", "Bad address"},
                  {95, "-EOPNOTSUPP", "Operation not supported"},
                  {524, "-ENOTSUPP", "Unknown error 524"}};
    for (const auto& n : kNames)
        if (error.find(n.name) != std::string::npos || error.find(n.text) != std::string::npos)
            return -n.err;
    return 0;
}

} // namespace strbpf::testing_support
