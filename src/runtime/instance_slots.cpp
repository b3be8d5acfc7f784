// SPDX-License-Identifier: BSD-2-Clause
// ObjectInstance's fd maps (runtime stage): inner map templates of map-in-maps, the resolvers that turn strbpf's
// fds (object indexes) into programs and maps, and the `values` initialisers libbpf applies after loading
// (bpf_object_init_prog_arrays, and the inner maps it sets when it creates a map-in-map).
#include <atomic>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "runtime/instance.hpp"
#include "runtime/maps/fd_maps.hpp"

namespace strbpf::runtime {
namespace {

constexpr uint32_t kInnerMapFlag = 1u << 12; // BPF_F_INNER_MAP: inner maps may differ in max_entries

// bpf_map_meta_equal: what an inner map must share with the template.
bool meta_equal(const loader::MapSpec& tmpl, const loader::MapSpec& m) {
    return tmpl.type == m.type && tmpl.key_size == m.key_size && tmpl.value_size == m.value_size &&
           tmpl.map_flags == m.map_flags && ((tmpl.map_flags & kInnerMapFlag) || tmpl.max_entries == m.max_entries);
}

} // namespace

Status ObjectInstance::create_templates() {
    inner_index_.assign(maps_.size(), -1);
    for (size_t i = 0; i < maps_.size(); i++) {
        const auto& inner = maps_[i]->spec().inner;
        if (!inner)
            continue;
        if (loader::is_map_in_map(inner->type))
            return make_error(fmt::format("map '{}': inner maps cannot be maps of maps", maps_[i]->name()),
                              -ENOTSUP);
        auto t = create_map(*inner);
        if (!t)
            return t.error();
        inner_index_[i] = int(maps_.size() + templates_.size());
        templates_.push_back(std::move(t).value());
    }
    return ok_status();
}

void ObjectInstance::install_resolvers() {
    for (size_t i = 0; i < maps_.size(); i++) {
        FdMap* fm = maps_[i]->as_fd_map();
        if (!fm)
            continue;
        if (maps_[i]->as_prog_array()) {
            // bpf_prog_map_compatible: the first program a prog_array holds decides the type of all the others.
            auto owner = std::make_shared<std::atomic<int>>(-1);
            fm->set_resolver([this, owner](uint32_t fd, void** obj) {
                if (fd >= programs_.size() || !programs_[fd].linked)
                    return -EBADF;
                const int type = int(programs_[fd].spec->type);
                int expected = -1;
                if (!owner->compare_exchange_strong(expected, type) && expected != type)
                    return -EINVAL;
                *obj = const_cast<LinkedProgram*>(&programs_[fd]);
                return 0;
            });
            continue;
        }
        const Map* tmpl = map(size_t(inner_index_[i]));
        fm->set_resolver([this, tmpl](uint32_t fd, void** obj) {
            if (fd >= maps_.size())
                return -EBADF;
            if (!meta_equal(tmpl->spec(), maps_[fd]->spec()))
                return -EINVAL;
            *obj = maps_[fd].get();
            return 0;
        });
    }
}

Status ObjectInstance::fill_slots() {
    for (auto& m : maps_) {
        for (const auto& slot : m->spec().slots) {
            int fd = -1;
            if (m->as_prog_array()) {
                for (size_t p = 0; p < programs_.size() && fd < 0; p++)
                    if (programs_[p].spec->name == slot.target)
                        fd = int(p);
            } else {
                fd = spec_->find_map(slot.target);
            }
            if (fd < 0)
                return make_error(fmt::format("map '{}': slot {} names '{}', which is not a {} of the object",
                                              m->name(), slot.index, slot.target,
                                              m->as_prog_array() ? "program" : "map"), -EINVAL);
            const uint32_t key = slot.index, value = uint32_t(fd);
            if (const int err = m->update(&key, &value, kBpfAny))
                return make_error(fmt::format("map '{}': failed to initialize slot [{}] to '{}': {}", m->name(),
                                              slot.index, slot.target, std::strerror(-err)), err);
        }
    }
    return ok_status();
}

} // namespace strbpf::runtime
