// Loads a BPF ELF object as clang -target bpf builds it for libbpf (loader stage).
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "loader/object_spec.hpp"
#include "strbpf/result.hpp"

namespace strbpf::loader {

// Reads and relocates an object. Errors name the section or offset at fault; never crashes on bad input.
Result<ObjectSpec> load_object_file(const std::string& path);
Result<ObjectSpec> load_object_memory(std::span<const uint8_t> image, const std::string& name = "<memory>");

// Program type from a SEC() name, as libbpf's section table maps it ("syscall", "xdp", "tc", "tp/...", ...).
// Returns false when the section is not a known program section.
bool prog_type_from_section(const std::string& section, ProgType* type);

} // namespace strbpf::loader
