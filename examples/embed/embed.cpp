// SPDX-License-Identifier: BSD-2-Clause
// Embedding strbpf from C++: open a BPF object, configure it before load, load (verify + JIT), fill a map, run a
// program, read its ring-buffer events (RingBuffer::poll).
#include <strbpf/object.hpp>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
    const char* path = argc > 1 ? argv[1] : "counter.bpf.o";
    strbpf::OpenOptions open_opts;
    open_opts.log = [](strbpf::LogLevel level, const std::string& msg) {
        if (level != strbpf::LogLevel::debug)
            std::fprintf(stderr, "strbpf: %s\n", msg.c_str());
    };
    auto obj = strbpf::Object::open(path, open_opts);
    if (!obj) {
        std::fprintf(stderr, "open: %s\n", obj.error().message.c_str());
        return 1;
    }
    if (auto st = obj->set_global("max_words", uint32_t(4)); !st) { // the default, set as a skeleton would
        std::fprintf(stderr, "set_global: %s\n", st.error().message.c_str());
        return 1;
    }
    if (auto st = obj->load(); !st) { // JIT by default; a program the verifier rejects fails the load
        std::fprintf(stderr, "load: %s\n", st.error().message.c_str());
        return 1;
    }
    auto limits = obj->map("limits");
    auto events = obj->map("events");
    auto prog = obj->program("count_below");
    if (!limits || !events || !prog) {
        std::fprintf(stderr, "object lacks limits, events or count_below\n");
        return 1;
    }
    if (auto st = limits->update(uint32_t(1), uint64_t(10)); !st) {
        std::fprintf(stderr, "update: %s\n", st.error().message.c_str());
        return 1;
    }
    const uint32_t words[4] = {3, 42, 7, 10};
    strbpf::RunOptions opts;
    opts.ctx.resize(sizeof words);
    std::memcpy(opts.ctx.data(), words, sizeof words);
    auto run = prog->run(opts);
    if (!run) {
        std::fprintf(stderr, "run: %s\n", run.error().message.c_str());
        return 1;
    }
    std::printf("retval %u\n", run->retval);
    // libbpf's ring_buffer: a callback per record; poll() waits (up to 1 s) for a wake-up, then consumes.
    auto rb = strbpf::RingBuffer::create(*events, [](std::span<const uint8_t> rec) {
        uint32_t ev[2];
        std::memcpy(ev, rec.data(), sizeof ev);
        std::printf("event: words[%u] = %u\n", ev[0], ev[1]);
        return 0;
    });
    auto n = rb ? rb->poll(1000) : strbpf::Result<size_t>(rb.error());
    if (!n || *n != run->retval) {
        std::fprintf(stderr, "expected %u events\n", run->retval);
        return 1;
    }
    return 0;
}
