// SPDX-License-Identifier: BSD-2-Clause
// The libFuzzer entry of one fuzz target (fuzz stage): STRBPF_FUZZ_ENTRY names its strbpf_fuzz_<name>() function.
#include "targets/targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return STRBPF_FUZZ_ENTRY(data, size); }
