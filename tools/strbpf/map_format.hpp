// SPDX-License-Identifier: BSD-2-Clause
// Map keys and values formatted through the object's BTF, as bpftool's btf_dumper formats them (tools stage):
// integers as numbers, char arrays as strings, other arrays as lists, structs and unions as objects by member name,
// enums by enumerator name, pointers as hex, global-data sections as their variables by name.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "loader/object_spec.hpp"

struct btf;

namespace strbpf::cli {

// The BTF types of one map's key and value (0 where BTF does not say).
struct MapTypes {
    uint32_t key = 0, value = 0;
    bool datasec = false; // the value is a DATASEC (global data): formatted as { var: value, ... }
};

class ObjectBtf {
  public:
    // Null when the object has no readable BTF.
    static std::unique_ptr<ObjectBtf> open(const std::string& obj_path);
    ~ObjectBtf();
    MapTypes types_of(const loader::MapSpec& map) const;
    // The value of type `id` held by bytes[0, size); nullopt when the type cannot be formatted.
    std::optional<nlohmann::ordered_json> format(uint32_t id, const uint8_t* bytes, size_t size) const;
    std::optional<nlohmann::ordered_json> format_datasec(uint32_t id, const uint8_t* bytes, size_t size) const;

  private:
    explicit ObjectBtf(struct btf* b) : btf_(b) {}
    std::optional<nlohmann::ordered_json> value(uint32_t id, const uint8_t* p, size_t size, int depth) const;
    std::optional<nlohmann::ordered_json> integer(uint32_t id, const uint8_t* p, size_t size) const;
    std::optional<nlohmann::ordered_json> composite(uint32_t id, const uint8_t* p, size_t size, int depth) const;
    std::optional<nlohmann::ordered_json> array(uint32_t id, const uint8_t* p, size_t size, int depth) const;
    std::optional<nlohmann::ordered_json> enumeration(uint32_t id, const uint8_t* p, size_t size) const;
    struct btf* btf_;
};

// "array", "hash", ...: libbpf's names of enum bpf_map_type (bpftool's `type` field); the number when unknown.
std::string map_type_name(uint32_t type);

} // namespace strbpf::cli
