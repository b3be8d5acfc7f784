// SPDX-License-Identifier: BSD-2-Clause
// The fuzz targets (fuzz stage): each takes one input and returns 0; a finding aborts (libFuzzer, ASan and the
// regression test tests/unit/fuzz_regression_test.cpp all see an abort). Every target builds with g++ too.
#pragma once
#include <cstddef>
#include <cstdint>

int strbpf_fuzz_elf_loader(const uint8_t* data, size_t size);
int strbpf_fuzz_verifier(const uint8_t* data, size_t size);
int strbpf_fuzz_verifier_soundness(const uint8_t* data, size_t size);
int strbpf_fuzz_interp_vs_jit(const uint8_t* data, size_t size);
int strbpf_fuzz_strings(const uint8_t* data, size_t size);
