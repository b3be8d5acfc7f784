// SPDX-License-Identifier: BSD-2-Clause
// The C API (include/strbpf/strbpf.h): the lifecycle through opaque handles, negative errnos with a message,
// options structs read up to their declared size, outputs copied into caller buffers.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "strbpf/strbpf.h"

namespace {

std::string path(const char* name) { return std::string(STRBPF_PROGS_DIR) + "/" + name; }

TEST(ApiC, ErrorsAreNegativeErrnosWithAMessage) {
    strbpf_object* obj = reinterpret_cast<strbpf_object*>(1);
    EXPECT_EQ(strbpf_object_open_file("/nonexistent/x.bpf.o", nullptr, &obj), -ENOENT);
    EXPECT_EQ(obj, nullptr);
    EXPECT_NE(std::string(strbpf_last_error()).find("/nonexistent/x.bpf.o"), std::string::npos);
    EXPECT_EQ(strbpf_object_open_file(nullptr, nullptr, &obj), -EINVAL);
    strbpf_object_close(nullptr);
}

TEST(ApiC, RejectedProgramsFailTheLoad) {
    strbpf_object* obj = nullptr;
    ASSERT_EQ(strbpf_object_open_file(path("verifier_reject.bpf.o").c_str(), nullptr, &obj), 0);
    EXPECT_EQ(strbpf_object_load(obj, nullptr), -EACCES);
    EXPECT_NE(std::string(strbpf_last_error()).find("program '"), std::string::npos);
    EXPECT_EQ(strbpf_object_find_map(obj, "vals"), nullptr) << "not loaded";
    strbpf_object_close(obj);
}

TEST(ApiC, GlobalsRunsAndRunners) {
    strbpf_object* obj = nullptr;
    strbpf_open_opts oo{};
    oo.sz = offsetof(strbpf_open_opts, log); // an older caller's smaller struct: the rest reads as zero
    oo.object_name = "g";
    ASSERT_EQ(strbpf_object_open_file(path("core_globals.bpf.o").c_str(), &oo, &obj), 0);
    EXPECT_STREQ(strbpf_object_name(obj), "g");
    const int32_t scale = 7;
    EXPECT_EQ(strbpf_object_set_global(obj, "scale", &scale, 8), -EINVAL);
    ASSERT_EQ(strbpf_object_set_global(obj, "scale", &scale, sizeof scale), 0);
    strbpf_load_opts lo{};
    lo.sz = sizeof lo;
    lo.engine = STRBPF_ENGINE_INTERP;
    lo.log_level = 1;
    ASSERT_EQ(strbpf_object_load(obj, &lo), 0) << strbpf_last_error();
    strbpf_program* p = strbpf_object_find_program(obj, "globals_rodata_volatile");
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(strbpf_program_accepted(p), 1);
    EXPECT_NE(std::string(strbpf_program_log(p)).find("processed"), std::string::npos);
    strbpf_run_opts ro{};
    ro.sz = sizeof ro;
    ro.repeat = 2;
    ASSERT_EQ(strbpf_program_run(p, &ro), 0) << strbpf_last_error();
    EXPECT_EQ(ro.retval, 35u);
    EXPECT_EQ(strbpf_object_set_global(obj, "scale", &scale, sizeof scale), -EBUSY);
    const int32_t counter = 2;
    ASSERT_EQ(strbpf_object_set_global(obj, "counter", &counter, sizeof counter), 0);
    strbpf_runner* r = nullptr;
    ASSERT_EQ(strbpf_runner_new(p, 0, &r), 0);
    uint64_t r0 = 0;
    ASSERT_EQ(strbpf_runner_run(r, nullptr, 0, &r0), 0) << strbpf_last_error();
    EXPECT_EQ(r0, 14u);
    strbpf_runner_free(r);
    int32_t got = 0;
    ASSERT_EQ(strbpf_object_get_global(obj, "counter", &got, sizeof got), 0);
    EXPECT_EQ(got, 2);
    strbpf_object_close(obj);
}

TEST(ApiC, MapsAndRingBuffers) {
    strbpf_object* obj = nullptr;
    ASSERT_EQ(strbpf_object_open_file(path("helpers_ringbuf.bpf.o").c_str(), nullptr, &obj), 0);
    ASSERT_EQ(strbpf_object_load(obj, nullptr), 0) << strbpf_last_error();
    strbpf_run_opts ro{};
    ro.sz = sizeof ro;
    ASSERT_EQ(strbpf_program_run(strbpf_object_find_program(obj, "ringbuf_output_query"), &ro), 0);
    strbpf_map* rb = strbpf_object_find_map(obj, "rb");
    ASSERT_NE(rb, nullptr);
    int records = 0;
    auto fn = [](const void*, size_t size, void* user) {
        *static_cast<int*>(user) += size == 16;
        return 0;
    };
    EXPECT_EQ(strbpf_map_ringbuf_consume(rb, fn, &records), 1);
    EXPECT_EQ(records, 1);
    uint32_t key = 0, next = 0;
    EXPECT_EQ(strbpf_map_lookup(rb, &key, 4, &next, 4), -EINVAL) << "a ring buffer has no lookup";
    strbpf_object_close(obj);
}

// strbpf_program_run reuses this thread's options and result: each run reports its own ctx_out and r0, a failed
// run reports nothing of an earlier one, and tail calls run on the JIT as on the interpreter.
TEST(ApiC, RepeatedRunsReportTheirOwnOutputs) {
    for (strbpf_engine e : {STRBPF_ENGINE_JIT, STRBPF_ENGINE_INTERP}) {
        strbpf_object* obj = nullptr;
        ASSERT_EQ(strbpf_object_open_file(path("api_runs.bpf.o").c_str(), nullptr, &obj), 0);
        strbpf_load_opts lo{};
        lo.sz = sizeof lo;
        lo.engine = e;
        ASSERT_EQ(strbpf_object_load(obj, &lo), 0) << strbpf_last_error();
        const strbpf_program* prog = strbpf_object_find_program(obj, "double_ctx");
        for (uint64_t v = 1; v <= 3; v++) {
            uint64_t out = 0;
            strbpf_run_opts ro{};
            ro.sz = sizeof ro;
            ro.ctx_in = &v;
            ro.ctx_size_in = sizeof v;
            ro.ctx_out = &out;
            ro.ctx_size_out = sizeof out;
            ASSERT_EQ(strbpf_program_run(prog, &ro), 0) << strbpf_last_error();
            EXPECT_EQ(out, v * 2);
            EXPECT_EQ(ro.ctx_size_out, sizeof out);
            EXPECT_EQ(ro.retval, v);
        }
        uint32_t shorter = 5;
        strbpf_run_opts ro{};
        ro.sz = sizeof ro;
        ro.ctx_in = &shorter;
        ro.ctx_size_in = sizeof shorter;
        EXPECT_EQ(strbpf_program_run(prog, &ro), -EINVAL) << "a ctx shorter than the program reads";
        EXPECT_EQ(ro.r0, 0u) << "nothing reported from the earlier runs";
        strbpf_object_close(obj);

        ASSERT_EQ(strbpf_object_open_file(path("api_tail_calls.bpf.o").c_str(), nullptr, &obj), 0);
        ASSERT_EQ(strbpf_program_set_autoload(strbpf_object_find_program(obj, "tail_target_rejected"), 0), 0);
        ASSERT_EQ(strbpf_object_load(obj, &lo), 0) << strbpf_last_error();
        uint64_t args[2] = {35, 0};
        ro = strbpf_run_opts{};
        ro.sz = sizeof ro;
        ro.ctx_in = args;
        ro.ctx_size_in = sizeof args;
        ASSERT_EQ(strbpf_program_run(strbpf_object_find_program(obj, "tail_caller"), &ro), 0) << strbpf_last_error();
        EXPECT_EQ(ro.r0, 42u);
        args[1] = 1; // the slot naming the rejected program
        EXPECT_EQ(strbpf_program_run(strbpf_object_find_program(obj, "tail_caller"), &ro), -EINVAL);
        EXPECT_NE(std::string(strbpf_last_error()).find("cannot load"), std::string::npos) << strbpf_last_error();
        strbpf_object_close(obj);
    }
}

} // namespace
