// SPDX-License-Identifier: BSD-2-Clause
// Shared pieces of the strbpf commands (tools stage).
#include "cli.hpp"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>

#include <fmt/format.h>

#include "exec/kernel/kernel_variant_probe.hpp"
#include "loader/loader.hpp"
#include "verifier/verifier.hpp"

namespace strbpf::cli {

Result<std::vector<uint8_t>> parse_hex(const std::string& hex) {
    std::vector<uint8_t> out;
    int nibble = -1;
    for (size_t i = 0; i < hex.size(); i++) {
        const char c = hex[i];
        if (c == ' ' || c == '\n' || c == '\t' || c == ':' || c == '\r')
            continue;
        if (c == '0' && i + 1 < hex.size() && (hex[i + 1] == 'x' || hex[i + 1] == 'X') && nibble < 0) {
            i++;
            continue;
        }
        int v;
        if (c >= '0' && c <= '9')
            v = c - '0';
        else if (c >= 'a' && c <= 'f')
            v = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v = c - 'A' + 10;
        else
            return make_error(fmt::format("invalid hex digit '{}' at position {}", c, i));
        if (nibble < 0) {
            nibble = v;
        } else {
            out.push_back(uint8_t(nibble << 4 | v));
            nibble = -1;
        }
    }
    if (nibble >= 0)
        return make_error("odd number of hex digits");
    return out;
}

std::string hex_string(const std::vector<uint8_t>& bytes) {
    std::string s;
    s.reserve(bytes.size() * 2);
    for (uint8_t b : bytes)
        s += fmt::format("{:02x}", b);
    return s;
}

std::string program_list(const loader::ObjectSpec& spec) {
    std::string names;
    for (const loader::ProgramSpec& p : spec.programs)
        names += (names.empty() ? "" : ", ") + p.name;
    return names.empty() ? "none" : names;
}

Result<std::vector<uint8_t>> read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f)
        return make_error(fmt::format("cannot open '{}'", path), -2);
    std::vector<uint8_t> data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    return data;
}

namespace {
loader::LoadOptions g_target; // set by the command line before a command runs
std::string g_kernel_variant = "running";
} // namespace

void add_target_options(CLI::App& cmd) {
    cmd.add_option("--kconfig", g_target.kconfig_path,
                   "kernel configuration for __kconfig externs (default: /boot/config-$(uname -r), "
                   "/proc/config.gz)")
        ->check(CLI::ExistingFile);
    // One target BTF for the loader's CO-RE relocations and for the verifier's BTF-typed programs.
    cmd.add_option("--btf", g_target.btf_path,
                   "kernel BTF (vmlinux) that CO-RE relocations are resolved against and tracing and lsm programs "
                   "are typed by (default: /sys/kernel/btf/vmlinux)")
        ->check(CLI::ExistingFile)
        ->each([](const std::string& path) { verifier::set_target_btf_path(path); });
    cmd.add_option("--kernel-variant", g_kernel_variant,
                   "the Linux 6.18 build whose verdicts to give: running (the running 6.18 kernel's, probed once per "
                   "boot; the 6.18 source's where it cannot be asked), upstream (the 6.18 source's), or facts "
                   "separated by commas (typed_lookup, sleepable_inner_maps, no_slice_rdwr, no_arena, no_xdp_adjust_meta)")
        ->capture_default_str();
}

bool apply_kernel_variant() {
    if (g_kernel_variant == "running") {
        if (Result<verifier::KernelVariant> v = exec::kernel::running_kernel_variant())
            verifier::set_default_kernel_variant(v.value());
        return true;
    }
    std::string error;
    std::optional<verifier::KernelVariant> v = verifier::parse_kernel_variant(g_kernel_variant, &error);
    if (!v) {
        std::fprintf(stderr, "strbpf: --kernel-variant: %s\n", error.c_str());
        return false;
    }
    verifier::set_default_kernel_variant(*v);
    return true;
}

const loader::LoadOptions& target_options() { return g_target; }

Result<std::shared_ptr<const loader::ObjectSpec>> load_spec(const std::string& path) {
    auto spec = loader::load_object_file(path, g_target);
    if (!spec)
        return spec.error();
    return std::shared_ptr<const loader::ObjectSpec>(std::make_shared<loader::ObjectSpec>(std::move(spec).value()));
}

} // namespace strbpf::cli
