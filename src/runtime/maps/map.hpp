// Map storage (runtime stage): the base class every map type implements. Each map keeps all its storage in one
// arena that the object's MemoryRegistry knows, so program-visible map memory is one region per map.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "loader/object_spec.hpp"
#include "strbpf/result.hpp"

namespace strbpf::runtime {

class Map {
  public:
    explicit Map(const loader::MapSpec& spec) : spec_(spec) {}
    virtual ~Map() = default;
    Map(const Map&) = delete;
    Map& operator=(const Map&) = delete;

    const loader::MapSpec& spec() const { return spec_; }
    const std::string& name() const { return spec_.name; }

    // The kernel's map operations; negative errno on failure. lookup returns nullptr when absent.
    virtual void* lookup(const void* key) = 0;
    virtual int update(const void* key, const void* value, uint64_t flags) = 0;
    virtual int remove(const void* key) = 0;
    virtual int next_key(const void* key, void* next_key) = 0; // key null: first key; -ENOENT at the end

    // The arena: all program-visible storage of this map.
    virtual uint8_t* arena() = 0;
    virtual uint64_t arena_size() const = 0;
    // Direct value address for ld_imm64 BPF_PSEUDO_MAP_VALUE (array maps: element 0); nullptr when unsupported.
    virtual uint8_t* direct_value() { return nullptr; }

  protected:
    loader::MapSpec spec_;
};

// Creates a map of spec.type; -EINVAL/-E2BIG style errors for bad or unsupported specs.
Result<std::unique_ptr<Map>> create_map(const loader::MapSpec& spec);

} // namespace strbpf::runtime
