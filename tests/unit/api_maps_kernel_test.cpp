// SPDX-License-Identifier: BSD-2-Clause
// The embedding API's maps beside the live kernel's: batch operations and lookup-and-delete (the same calls, in the
// same order, on maps of the same shape: an 8-entry array and a 4-entry hash of u32 -> u64, through libbpf and
// through MapRef; every return value, count and batch token must agree), and ring buffer wake-ups (one program
// submitting with each wake-up flag, its ring's epoll fd watched through libbpf's ring_buffer and through
// RingBuffer). Skipped where bpf() is unavailable.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "exec/kernel/kernel_engine.hpp"
#include "strbpf/object.hpp"

// After strbpf's headers: <linux/bpf.h> defines BPF_* macros that would clobber strbpf::isa's constants.
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <poll.h>
#include <linux/bpf.h>
#include <unistd.h>

namespace strbpf {
namespace {

// One side of the comparison: the operations on the map named "array" or "hash", returning the negative errno.
struct Side {
    std::function<int(bool hash, const void* in, void* out, void* keys, void* values, uint32_t* count,
                      uint64_t elem_flags, uint64_t flags, bool del)>
        lookup_batch;
    std::function<int(bool hash, const void* keys, const void* values, uint32_t* count, uint64_t elem_flags)>
        update_batch;
    std::function<int(bool hash, const void* keys, uint32_t* count)> delete_batch;
    std::function<int(bool hash, const void* key, void* value, uint64_t flags)> lookup_and_delete;
};

// Runs the script on one side; each step appends what it saw (return, count, token, value) as one line.
std::vector<std::string> script(Side& s) {
    std::vector<std::string> seen;
    uint32_t keys[8] = {0, 1, 2, 3, 4, 5, 6, 7}, gk[8] = {}, out = 0xdead, tok = 0, count = 0;
    uint64_t vals[8] = {10, 11, 12, 13, 14, 15, 16, 17}, gv[8] = {}, v = 0;
    auto note = [&](const char* what, int rc) {
        seen.push_back(fmt::format("{}: {} count {} out {}", what, rc, count, out));
    };
    count = 8;
    note("array update", s.update_batch(false, keys, vals, &count, 0));
    for (int i = 0; i < 4; i++) {
        count = 3;
        const int rc = s.lookup_batch(false, i ? &tok : nullptr, &out, gk, gv, &count, 0, 0, false);
        note("array walk", rc);
        seen.push_back(fmt::format("  keys {} {} {} values {} {} {}", gk[0], gk[1], gk[2], gv[0], gv[1], gv[2]));
        tok = out;
        if (rc)
            break;
    }
    count = 8;
    note("array delete", s.delete_batch(false, keys, &count));
    count = 1;
    note("array lookup_and_delete batch", s.lookup_batch(false, nullptr, &out, gk, gv, &count, 0, 0, true));
    note("array lookup_and_delete", s.lookup_and_delete(false, keys, &v, 0));
    for (uint64_t ef : {1ull, 4ull, 8ull}) {
        count = 1;
        note("array elem_flags", s.lookup_batch(false, nullptr, &out, gk, gv, &count, ef, 0, false));
    }
    count = 1;
    note("array flags", s.lookup_batch(false, nullptr, &out, gk, gv, &count, 0, 1, false));
    count = 1;
    note("array update NOEXIST", s.update_batch(false, keys, vals, &count, BPF_NOEXIST));
    count = 1;
    note("hash flags", s.lookup_batch(true, nullptr, &out, gk, gv, &count, 0, 1, false));
    uint32_t hk[4] = {3, 9, 27, 81}, extra = 5, past = 1u << 20;
    count = 4;
    note("hash update", s.update_batch(true, hk, vals, &count, 0));
    count = 1;
    note("hash full", s.update_batch(true, &extra, vals, &count, 0));
    count = 1;
    note("hash past", s.lookup_batch(true, &past, &out, gk, gv, &count, 0, 0, false));
    count = 0;
    note("hash count 0", s.lookup_batch(true, nullptr, &out, gk, gv, &count, 0, 0, false));
    count = 4;
    note("hash all", s.lookup_batch(true, nullptr, &out, gk, gv, &count, 0, 0, false));
    note("hash lookup_and_delete", s.lookup_and_delete(true, &hk[1], &v, 0));
    seen.push_back(fmt::format("  value {}", v));
    note("hash lookup_and_delete again", s.lookup_and_delete(true, &hk[1], &v, 0));
    note("hash lookup_and_delete flags", s.lookup_and_delete(true, &hk[0], &v, 1));
    count = 4;
    note("hash lookup_and_delete batch", s.lookup_batch(true, nullptr, &out, gk, gv, &count, 0, 0, true));
    count = 4;
    note("hash empty", s.lookup_batch(true, nullptr, &out, gk, gv, &count, 0, 0, false));
    uint32_t two[2] = {3, 27}, del[2] = {27, 1000};
    count = 2;
    note("hash update two", s.update_batch(true, two, vals, &count, 0));
    count = 2;
    note("hash delete", s.delete_batch(true, del, &count));
    count = 1;
    note("hash one", s.lookup_batch(true, nullptr, &out, gk, gv, &count, 0, 0, false));
    return seen;
}

TEST(ApiMapsKernel, BatchOperationsAnswerAsTheKernels) {
    if (Status st = exec::kernel::available(); !st.ok())
        GTEST_SKIP() << "kernel engine unavailable: " << st.error().message;
    const int ka = bpf_map_create(BPF_MAP_TYPE_ARRAY, "a", 4, 8, 8, nullptr);
    const int kh = bpf_map_create(BPF_MAP_TYPE_HASH, "h", 4, 8, 4, nullptr);
    ASSERT_GE(ka, 0);
    ASSERT_GE(kh, 0);
    Side kernel;
    kernel.lookup_batch = [&](bool hash, const void* in, void* out, void* keys, void* values, uint32_t* count,
                              uint64_t ef, uint64_t fl, bool del) {
        LIBBPF_OPTS(bpf_map_batch_opts, o, .elem_flags = ef, .flags = fl);
        void* in_batch = const_cast<void*>(in);
        const int fd = hash ? kh : ka;
        return del ? bpf_map_lookup_and_delete_batch(fd, in_batch, out, keys, values, count, &o)
                   : bpf_map_lookup_batch(fd, in_batch, out, keys, values, count, &o);
    };
    kernel.update_batch = [&](bool hash, const void* keys, const void* values, uint32_t* count, uint64_t ef) {
        LIBBPF_OPTS(bpf_map_batch_opts, o, .elem_flags = ef);
        return bpf_map_update_batch(hash ? kh : ka, keys, values, count, &o);
    };
    kernel.delete_batch = [&](bool hash, const void* keys, uint32_t* count) {
        return bpf_map_delete_batch(hash ? kh : ka, keys, count, nullptr);
    };
    kernel.lookup_and_delete = [&](bool hash, const void* key, void* value, uint64_t flags) {
        return bpf_map_lookup_and_delete_elem_flags(hash ? kh : ka, key, value, flags);
    };
    const auto want = script(kernel);
    close(ka);
    close(kh);

    auto obj = Object::open(std::string(STRBPF_PROGS_DIR) + "/maps_hash_array.bpf.o");
    ASSERT_TRUE(obj.ok());
    ASSERT_TRUE(obj->load().ok());
    MapRef array = *obj->map("array"), hash = *obj->map("hash");
    auto code = [](const Status& st) { return st.ok() ? 0 : st.error().code; };
    auto bytes = [](const void* p, size_t n) {
        return std::span<uint8_t>(static_cast<uint8_t*>(const_cast<void*>(p)), p ? n : 0);
    };
    Side api;
    api.lookup_batch = [&](bool h, const void* in, void* out, void* keys, void* values, uint32_t* count, uint64_t ef,
                           uint64_t fl, bool del) {
        MapRef& m = h ? hash : array;
        const BatchOptions o{ef, fl};
        auto k = bytes(keys, 8 * 4), v = bytes(values, 8 * 8), ob = bytes(out, 4);
        return code(del ? m.lookup_and_delete_batch(bytes(in, 4), ob, k, v, *count, o)
                        : m.lookup_batch(bytes(in, 4), ob, k, v, *count, o));
    };
    api.update_batch = [&](bool h, const void* keys, const void* values, uint32_t* count, uint64_t ef) {
        MapRef& m = h ? hash : array;
        return code(m.update_batch(bytes(keys, *count * 4), bytes(values, *count * 8), *count, {ef, 0}));
    };
    api.delete_batch = [&](bool h, const void* keys, uint32_t* count) {
        return code((h ? hash : array).delete_batch(bytes(keys, *count * 4), *count));
    };
    api.lookup_and_delete = [&](bool h, const void* key, void* value, uint64_t flags) {
        return code((h ? hash : array).lookup_and_delete(bytes(key, 4), bytes(value, 8), flags));
    };
    const auto got = script(api);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); i++)
        EXPECT_EQ(got[i], want[i]) << "step " << i;
}

// Ring buffer wake-ups: what a consumer sees after each run of api_ringbuf_wakeup's `emit` with the given .bss
// settings. A side sets a global, runs the program once, tells whether the epoll fd is readable (within 50 ms: the
// kernel wakes through irq_work) and polls or consumes.
struct RingSide {
    std::function<void(const char* var, uint64_t value)> set;
    std::function<void()> emit;
    int epoll_fd = -1;
    std::function<int(int timeout_ms)> poll;
    std::function<int()> consume;
};

// Each line is one observation, taken in order. A readability check of the kernel's epoll fd also drops a listed
// ring without data, which strbpf's RingBuffer cannot see (ring_buffer.hpp, epoll_fd): the script looks at the fd
// only where no ring is listed or one has just been woken.
std::vector<std::string> ring_script(RingSide& s) {
    std::vector<std::string> seen;
    auto readable = [&](const char* what) {
        pollfd p{s.epoll_fd, POLLIN, 0};
        seen.push_back(fmt::format("{}: readable {}", what, ::poll(&p, 1, 50) == 1));
    };
    auto poll = [&](const char* what) { seen.push_back(fmt::format("{}: poll {}", what, s.poll(0))); };
    readable("start");
    poll("start");
    s.emit();
    readable("first record wakes");
    s.emit();
    readable("second record, consumer behind");
    poll("both");
    poll("again: empty, dropped");
    readable("after polls");
    s.set("wake_flags", 1); // BPF_RB_NO_WAKEUP
    s.emit();
    readable("no wake-up");
    poll("not listed");
    seen.push_back(fmt::format("consume {}", s.consume()));
    s.set("wake_flags", 0);
    s.emit();
    poll("woken");
    s.set("wake_flags", 1);
    s.emit();
    poll("listed ring, no wake-up record"); // the kernel's level-triggered ready list takes it at once
    s.set("mode", 1); // reserve + submit
    s.emit();
    poll("listed ring, submitted record");
    poll("again: empty, dropped");
    readable("after polls");
    s.set("wake_flags", 2); // BPF_RB_FORCE_WAKEUP
    s.emit();
    readable("forced wake-up");
    poll("forced");
    s.set("mode", 2); // reserve + discard
    s.set("wake_flags", 0);
    s.emit();
    readable("discard wakes");
    poll("discarded");
    poll("again: empty, dropped");
    s.set("mode", 0);
    s.emit();
    seen.push_back(fmt::format("consume {}", s.consume()));
    poll("woken, emptied by consume");
    return seen;
}

int count_sample(void* ctx, void*, size_t) {
    ++*static_cast<int*>(ctx);
    return 0;
}

TEST(ApiMapsKernel, RingBufferWakeUpsAreTheKernels) {
    if (Status st = exec::kernel::available(); !st.ok())
        GTEST_SKIP() << "kernel engine unavailable: " << st.error().message;
    const std::string path = std::string(STRBPF_PROGS_DIR) + "/api_ringbuf_wakeup.bpf.o";
    auto ours = Object::open(path);
    ASSERT_TRUE(ours.ok());
    bpf_object* kobj = bpf_object__open_file(path.c_str(), nullptr);
    ASSERT_NE(kobj, nullptr);
    ASSERT_EQ(bpf_object__load(kobj), 0);
    bpf_map* bss = bpf_object__find_map_by_name(kobj, ".bss");
    ASSERT_NE(bss, nullptr);
    std::vector<uint8_t> bss_data(bpf_map__value_size(bss));
    const uint32_t zero = 0;
    ASSERT_EQ(bpf_map_lookup_elem(bpf_map__fd(bss), &zero, bss_data.data()), 0);
    const int prog_fd = bpf_program__fd(bpf_object__find_program_by_name(kobj, "emit"));
    int ksamples = 0;
    ring_buffer* krb = ring_buffer__new(bpf_object__find_map_fd_by_name(kobj, "events"), count_sample, &ksamples,
                                        nullptr);
    ASSERT_NE(krb, nullptr);
    RingSide kernel;
    kernel.set = [&](const char* var, uint64_t v) {
        auto info = ours->global_info(var); // the same object: the same offsets
        ASSERT_TRUE(info.ok() && info->offset + 8 <= bss_data.size());
        std::memcpy(bss_data.data() + info->offset, &v, sizeof v);
        ASSERT_EQ(bpf_map_update_elem(bpf_map__fd(bss), &zero, bss_data.data(), BPF_ANY), 0);
    };
    kernel.emit = [&] {
        LIBBPF_OPTS(bpf_test_run_opts, o);
        ASSERT_EQ(bpf_prog_test_run_opts(prog_fd, &o), 0);
        ASSERT_EQ(o.retval, 0u);
    };
    kernel.epoll_fd = ring_buffer__epoll_fd(krb);
    kernel.poll = [&](int t) { return ring_buffer__poll(krb, t); };
    kernel.consume = [&] { return ring_buffer__consume(krb); };
    const auto want = ring_script(kernel);
    ring_buffer__free(krb);
    bpf_object__close(kobj);

    ASSERT_TRUE(ours->load().ok());
    auto rb = RingBuffer::create(*ours->map("events"), [](std::span<const uint8_t>) { return 0; });
    ASSERT_TRUE(rb.ok());
    auto runner = Runner::create(*ours->program("emit"));
    ASSERT_TRUE(runner.ok());
    RingSide api;
    api.set = [&](const char* var, uint64_t v) { ASSERT_TRUE(ours->set_global(var, v).ok()); };
    api.emit = [&] {
        uint64_t ctx = 0;
        auto r = runner->run(std::span<uint8_t>(reinterpret_cast<uint8_t*>(&ctx), sizeof ctx));
        ASSERT_TRUE(r.ok());
        ASSERT_EQ(*r, 0u);
    };
    api.epoll_fd = rb->epoll_fd();
    api.poll = [&](int t) { return int(*rb->poll(t)); };
    api.consume = [&] { return int(*rb->consume()); };
    const auto got = ring_script(api);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); i++)
        EXPECT_EQ(got[i], want[i]) << "step " << i;
}

} // namespace
} // namespace strbpf
