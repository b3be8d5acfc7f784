// SPDX-License-Identifier: BSD-2-Clause
// Shared pieces of the strbpf commands (tools stage): exit codes, input parsing, object loading.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "exec/engine.hpp"
#include "loader/loader.hpp"
#include "loader/object_spec.hpp"
#include "strbpf/result.hpp"

namespace strbpf::cli {

// Exit codes: 0 all ran / passed; 1 some program rejected, failed or a test failed; 2 usage and I/O errors.
inline constexpr int kExitOk = 0, kExitFailed = 1, kExitUsage = 2;

Result<std::vector<uint8_t>> parse_hex(const std::string& hex);
Result<std::vector<uint8_t>> read_file(const std::string& path);
// Loads with the target options every command takes (--kconfig FILE, --btf FILE: add_target_options).
Result<std::shared_ptr<const loader::ObjectSpec>> load_spec(const std::string& path);
void add_target_options(CLI::App& cmd);
// Sets the verifier's default kernel build from --kernel-variant (default "running": the running 6.18 kernel's,
// probed once per boot, else the 6.18 source's); false, with a message on stderr, for a list naming no fact.
bool apply_kernel_variant();
const loader::LoadOptions& target_options();
std::string hex_string(const std::vector<uint8_t>& bytes);
// "a, b, c": the object's program names in ELF order, for "no program 'x' in OBJ (its programs: ...)".
std::string program_list(const loader::ObjectSpec& spec);

// Each command registers its subcommand and returns the function that runs it after parsing.
using Runner = std::function<int()>;
Runner add_run_command(CLI::App& app);
Runner add_disasm_command(CLI::App& app);
Runner add_test_command(CLI::App& app);
Runner add_map_command(CLI::App& app);
Runner add_verify_command(CLI::App& app);
Runner add_bench_command(CLI::App& app);
Runner add_conformance_command(CLI::App& app);

} // namespace strbpf::cli
