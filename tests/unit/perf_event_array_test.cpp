// SPDX-License-Identifier: BSD-2-Clause
// BPF_MAP_TYPE_PERF_EVENT_ARRAY (runtime + exec stages): slots a reader opens, the records bpf_perf_event_output
// leaves there on interp and jit (sizes padded as a perf reader sees them), lost records when a slot's buffer is
// full, another CPU's slot, closing, the syscall view's errnos, several producers on one slot (TSAN), and the
// records `strbpf map dump` prints.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "exec/runner.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "runtime/maps/perf_event_array_map.hpp"

namespace strbpf::runtime {
namespace {

using Records = std::vector<std::vector<uint8_t>>;

int keep(void* arg, const uint8_t* d, uint32_t n) {
    static_cast<Records*>(arg)->emplace_back(d, d + n);
    return 0;
}

std::unique_ptr<Map> make(uint32_t max_entries) {
    loader::MapSpec s;
    s.name = "pe";
    s.type = loader::kMapPerfEventArray;
    s.key_size = s.value_size = 4;
    s.max_entries = max_entries;
    auto m = create_map(s);
    EXPECT_TRUE(m) << m.error().message;
    return std::move(m).value();
}

TEST(PerfEventArray, RecordsArePaddedAsAReaderSeesThem) {
    auto m = make(2);
    PerfEventArrayMap* pa = m->as_perf_event_array();
    ASSERT_NE(pa, nullptr);
    const uint8_t data[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    EXPECT_EQ(pa->output(0, 0, data, 4, nullptr, 0), -ENOENT); // no reader yet
    ASSERT_EQ(pa->open_slot(0, 0, 4096), 0);
    EXPECT_EQ(pa->open_slot(0, 0, 4096), -EEXIST);
    EXPECT_EQ(pa->open_slot(2, 0, 4096), -E2BIG);
    EXPECT_EQ(pa->output(0, 0, data, 4, nullptr, 0), 0);
    EXPECT_EQ(pa->output(0, 0, data, 5, data + 5, 4), 0); // data then packet bytes
    EXPECT_EQ(pa->output(0, 1, data, 4, nullptr, 0), -EOPNOTSUPP); // the slot's event is CPU 0's
    EXPECT_EQ(pa->output(1, 0, data, 4, nullptr, 0), -ENOENT);
    EXPECT_EQ(pa->output(2, 0, data, 4, nullptr, 0), -E2BIG);
    Records r;
    EXPECT_EQ(pa->consume(0, keep, &r), 2);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0], (std::vector<uint8_t>{1, 2, 3, 4}));                       // 4 + 4: no padding
    EXPECT_EQ(r[1], (std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0})); // 4 + 9 -> 16
    r.clear();
    EXPECT_EQ(pa->consume(0, keep, &r), 0);
}

TEST(PerfEventArray, FullBufferLosesRecords) {
    auto m = make(1);
    PerfEventArrayMap* pa = m->as_perf_event_array();
    ASSERT_EQ(pa->open_slot(0, 0, 4096), 0);
    const std::vector<uint8_t> big(1020, 0xab); // 1024 bytes with the size field
    for (int i = 0; i < 4; i++)
        EXPECT_EQ(pa->output(0, 0, big.data(), big.size(), nullptr, 0), 0);
    EXPECT_EQ(pa->output(0, 0, big.data(), big.size(), nullptr, 0), -ENOSPC);
    EXPECT_EQ(pa->lost(0), 1u);
    Records r;
    EXPECT_EQ(pa->consume(0, [](void*, const uint8_t*, uint32_t) { return 1; }, nullptr), 0); // stops, keeps
    EXPECT_EQ(pa->consume(0, keep, &r), 4);
    EXPECT_EQ(pa->output(0, 0, big.data(), big.size(), nullptr, 0), 0); // room again
    r.clear();
    EXPECT_EQ(pa->consume(0, keep, &r), 1);
    EXPECT_EQ(r.at(0), big);
}

TEST(PerfEventArray, SyscallView) {
    auto m = make(3);
    PerfEventArrayMap* pa = m->as_perf_event_array();
    uint32_t k = 1, v = 0, next = 0;
    EXPECT_EQ(m->copy_value(&k, &v), -524);        // -ENOTSUPP: no map_fd_sys_lookup_elem
    EXPECT_EQ(m->update_value(&k, &v, 0), -EOPNOTSUPP);
    EXPECT_EQ(m->remove(&k), -ENOENT);
    ASSERT_EQ(pa->open_slot(1, 1, 0), 0);
    EXPECT_EQ(m->remove(&k), 0);
    EXPECT_FALSE(pa->slot_open(1));
    k = 3;
    EXPECT_EQ(m->remove(&k), -E2BIG);
    EXPECT_EQ(m->next_key(nullptr, &next), 0);
    EXPECT_EQ(next, 0u);
    k = 2;
    EXPECT_EQ(m->next_key(&k, &next), -ENOENT);
}

// libbpf gives a perf_event_array without max_entries one slot per possible CPU.
TEST(PerfEventArray, ZeroMaxEntriesIsPossibleCpus) { EXPECT_EQ(make(0)->spec().max_entries, possible_cpus()); }

TEST(PerfEventArray, ProgramRecordsOnEveryEngine) {
    for (exec::EngineKind engine : {exec::EngineKind::interp, exec::EngineKind::jit}) {
        auto spec = loader::load_object_file(STRBPF_PROGS_DIR "/maps_perf_event_array.bpf.o");
        ASSERT_TRUE(spec.ok()) << spec.error().message;
        auto inst = ObjectInstance::create(std::make_shared<loader::ObjectSpec>(std::move(spec).value()));
        ASSERT_TRUE(inst.ok()) << inst.error().message;
        PerfEventArrayMap* three = inst.value()->find_map("three")->as_perf_event_array();
        PerfEventArrayMap* events = inst.value()->find_map("events")->as_perf_event_array();
        ASSERT_TRUE(three && events);
        ASSERT_EQ(three->open_slot(0, 0, 4096), 0);
        ASSERT_EQ(events->open_slot(0, 0, 4096), 0); // the run is on CPU 0
        const LinkedProgram* prog = inst.value()->find_program("emit_records");
        ASSERT_NE(prog, nullptr);
        exec::RunReport r = exec::run_linked(engine, *inst.value(), *prog, exec::RunRequest{});
        ASSERT_TRUE(r.loaded && r.ran) << r.error;
        EXPECT_EQ(r.retval, 0u);
        Records a, b;
        EXPECT_EQ(three->consume(0, keep, &a), 2);
        ASSERT_EQ(a.size(), 2u);
        EXPECT_EQ(a[0], (std::vector<uint8_t>{0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0, 0, 0, 0}));
        EXPECT_EQ(a[1], (std::vector<uint8_t>{'a', 'b', 'c', 'd', 'e', 0, 0, 0, 0, 0, 0, 0}));
        EXPECT_EQ(events->consume(0, keep, &b), 1);
        EXPECT_EQ(b.at(0), (std::vector<uint8_t>{0, 0, 0, 0}));
    }
}

// Several producers on one slot and a consumer: every record arrives whole, none twice.
TEST(PerfEventArray, SeveralProducersOneSlot) {
    auto m = make(1);
    PerfEventArrayMap* pa = m->as_perf_event_array();
    ASSERT_EQ(pa->open_slot(0, 0, 1 << 20), 0);
    constexpr uint32_t kPerThread = 5000;
    std::vector<std::thread> ts;
    for (uint32_t t = 0; t < 4; t++)
        ts.emplace_back([pa, t] {
            for (uint32_t i = 0; i < kPerThread; i++) {
                const uint32_t rec[2] = {t, i};
                while (pa->output(0, 0, rec, sizeof(rec), nullptr, 0) == -ENOSPC)
                    std::this_thread::yield();
            }
        });
    std::vector<uint32_t> next(4, 0);
    uint32_t got = 0;
    struct State { std::vector<uint32_t>* next; uint32_t* got; bool ok = true; } st{&next, &got};
    while (got < 4 * kPerThread)
        pa->consume(0, [](void* arg, const uint8_t* d, uint32_t n) {
            auto* s = static_cast<State*>(arg);
            uint32_t rec[2];
            std::memcpy(rec, d, 8);
            s->ok = s->ok && n == 12 && rec[0] < 4 && rec[1] == (*s->next)[rec[0]];
            (*s->next)[rec[0] % 4]++;
            (*s->got)++;
            return 0;
        }, &st);
    for (auto& th : ts)
        th.join();
    EXPECT_TRUE(st.ok);
    EXPECT_EQ(got, 4 * kPerThread);
}

} // namespace
} // namespace strbpf::runtime

namespace strbpf::runtime {
namespace {

std::string cli_output(const std::string& args) {
    std::string out;
    FILE* p = popen((std::string(STRBPF_CLI) + " " + args + " 2>&1").c_str(), "r");
    if (!p)
        return out;
    char buf[512];
    while (fgets(buf, sizeof buf, p))
        out += buf;
    pclose(p);
    return out;
}

// `strbpf map dump --run` opens a reader on each possible CPU's slot and prints the records; ring buffers print
// the records not consumed yet.
TEST(MapDumpRecords, PerfAndRingbufRecordsAreShown) {
    const std::string perf = cli_output("map dump " STRBPF_PROGS_DIR "/maps_perf_event_array.bpf.o --run emit_records");
    EXPECT_NE(perf.find("slot 0: 2 records, 0 lost\n    record 12B: 88 77 66 55 44 33 22 11 00 00 00 00\n"
                        "    record 12B: 61 62 63 64 65 00 00 00 00 00 00 00\n"),
              std::string::npos)
        << perf;
    EXPECT_NE(perf.find("record 4B: 00 00 00 00"), std::string::npos) << perf;
    const std::string rb =
        cli_output("map dump " STRBPF_PROGS_DIR "/helpers_ringbuf.bpf.o --run ringbuf_output_query --map rb --json");
    EXPECT_NE(rb.find("\"records\":[\"01 00 00 00 02 00 00 00 03 00 00 00 00 00 00 00\"]"), std::string::npos) << rb;
}

} // namespace
} // namespace strbpf::runtime
