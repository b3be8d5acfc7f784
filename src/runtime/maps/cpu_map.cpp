// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_CPUMAP (runtime stage), with Linux 6.18's rules (kernel/bpf/cpumap.c, checked against the live kernel
// by tests/unit/dev_maps_test.cpp). Key i is CPU i; a value is struct bpf_cpumap_val: the queue size of the CPU's
// ring (1..16384; 0 empties the entry) and, in an 8-byte value, a program fd that becomes the program's id. The
// key must be a possible CPU as strbpf models them (possible_cpus(), the per-CPU maps' count). strbpf starts no
// kthread and holds no program in an entry: an fd above 0 is refused with -ENOMEM, what the kernel answers when
// the fd names no XDP program of attach type BPF_XDP_CPUMAP (__cpu_map_entry_alloc fails as a whole). Programs
// only redirect to a cpumap (the verifier refuses its lookups), so its values are not program-visible memory.
#include <sys/utsname.h>
#include <zlib.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include <fmt/format.h>

#include "runtime/maps/array_util.hpp"
#include "runtime/maps/redirect_maps.hpp"

namespace strbpf::runtime {

uint32_t kernel_nr_cpus() {
    static const uint32_t n = [] {
        struct utsname uts;
        gzFile f = nullptr;
        if (uname(&uts) == 0)
            f = gzopen(fmt::format("/boot/config-{}", uts.release).c_str(), "re");
        if (!f)
            f = gzopen("/proc/config.gz", "re");
        uint32_t found = 0;
        if (f) {
            char line[256];
            while (!found && gzgets(f, line, sizeof line))
                if (std::strncmp(line, "CONFIG_NR_CPUS=", 15) == 0)
                    found = uint32_t(std::strtoul(line + 15, nullptr, 10));
            gzclose(f);
        }
        return found ? found : 8192u;
    }();
    return n;
}

namespace {

constexpr uint32_t kMaxQsize = 16384; // cpu_map_update_elem's sanity limit

class CpuMap final : public RedirectMap {
  public:
    explicit CpuMap(const loader::MapSpec& spec) : RedirectMap(spec), qsize_(new uint32_t[spec.max_entries]()) {}

    // The syscall's lookup (programs cannot look a cpumap up): qsize, then the program id strbpf never has (0).
    void* lookup(const void*) override { return nullptr; }
    int copy_value(const void* key, void* out) override {
        const uint32_t i = array_index(key);
        std::lock_guard<std::mutex> g(mu_);
        if (i >= spec_.max_entries || !qsize_[i])
            return -ENOENT;
        const uint32_t v[2] = {qsize_[i], 0};
        std::memcpy(out, v, spec_.value_size);
        return 0;
    }
    // cpu_map_update_elem: -EINVAL (flags); -E2BIG (index); -EEXIST (BPF_NOEXIST: a slot always exists);
    // -EOVERFLOW (qsize above 16384); -ENODEV (not a possible CPU); -ENOMEM (a program fd, see above).
    int update(const void* key, const void* value, uint64_t flags) override {
        uint32_t v[2] = {0, 0};
        std::memcpy(v, value, spec_.value_size);
        if (flags > kBpfExist)
            return -EINVAL;
        const uint32_t i = array_index(key);
        if (i >= spec_.max_entries)
            return -E2BIG;
        if (flags == kBpfNoexist)
            return -EEXIST;
        if (v[0] > kMaxQsize)
            return -EOVERFLOW;
        if (i >= possible_cpus())
            return -ENODEV;
        if (v[0] && int32_t(v[1]) > 0)
            return -ENOMEM;
        std::lock_guard<std::mutex> g(mu_);
        qsize_[i] = v[0];
        return 0;
    }
    // cpu_map_delete_elem: -EINVAL past max_entries; an empty slot's delete succeeds.
    int remove(const void* key) override {
        const uint32_t i = array_index(key);
        if (i >= spec_.max_entries)
            return -EINVAL;
        std::lock_guard<std::mutex> g(mu_);
        qsize_[i] = 0;
        return 0;
    }
    int next_key(const void* key, void* next) override { return array_next_key(key, next, spec_.max_entries); }
    uint8_t* arena() override { return nullptr; }
    uint64_t arena_size() const override { return 0; }

    bool redirect_target(uint32_t key) override {
        std::lock_guard<std::mutex> g(mu_);
        return key < spec_.max_entries && qsize_[key];
    }

  private:
    std::unique_ptr<uint32_t[]> qsize_;
    std::mutex mu_;
};

} // namespace

// cpu_map_alloc: -EINVAL (sizes, flags other than BPF_F_NUMA_NODE); -E2BIG (max_entries above CONFIG_NR_CPUS).
Result<std::unique_ptr<Map>> create_cpu_map(const loader::MapSpec& spec) {
    if (spec.max_entries == 0 || spec.key_size != 4 || (spec.value_size != 4 && spec.value_size != 8) ||
        (spec.map_flags & ~loader::kMapFlagNumaNode))
        return make_error(fmt::format("map '{}': a cpumap needs max_entries above 0, key_size 4, value_size 4 or 8 "
                                      "and no map_flags but BPF_F_NUMA_NODE (max_entries {}, key_size {}, "
                                      "value_size {}, map_flags 0x{:x})", spec.name, spec.max_entries,
                                      spec.key_size, spec.value_size, spec.map_flags), -EINVAL);
    if (spec.max_entries > kernel_nr_cpus())
        return make_error(fmt::format("map '{}': a cpumap holds at most CONFIG_NR_CPUS ({}) entries, not {}",
                                      spec.name, kernel_nr_cpus(), spec.max_entries), -E2BIG);
    return std::unique_ptr<Map>(std::make_unique<CpuMap>(spec));
}

} // namespace strbpf::runtime
