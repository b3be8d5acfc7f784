// SPDX-License-Identifier: BSD-2-Clause
// Program-type contexts for user-space test runs (exec stage): what the kernel's bpf_prog_test_run_* builds for
// each program type — the ctx struct, the packet, their regions in the run's memory — and what it reports back.
//   raw_tp: ctx_in is the u64 argument array (at most 12), read-only, no data_in (bpf_prog_test_run_raw_tp);
//   tp, kprobe: the kernel cannot test-run them; strbpf gives ctx_in as read-only bytes the same way;
//   socket_filter, sched_cls/sched_act, cgroup_skb, lwt_in/out/xmit: an skb built like bpf_prog_test_run_skb,
//   the program's ctx strbpf's sk_buff model (runtime/ctx_model.hpp: the verifier rewrites __sk_buff accesses
//   onto it; see contexts.cpp);
//   xdp: the xdp_buff model (xdp_md accesses rewritten onto it) inside bpf_prog_test_run_xdp's buffer (headroom,
//   linear data, skb_shared_info, frags; contexts_xdp.cpp); syscall: ctx_in read-write, copied back;
//   sk_lookup: a struct bpf_sk_lookup ctx_in, the program's ctx the bpf_sk_lookup_kern model (contexts_sk_lookup.cpp);
//   netfilter: bpf_prog_test_run_nf's data and nf_hook_state rules, an opaque ctx (contexts_netfilter.cpp);
//   flow_dissector: an Ethernet frame, the bpf_flow_dissector model and its flow keys, which data_out returns
//   (contexts_flow_dissector.cpp);
//   tracing (fentry, fexit, fmod_ret): the program runs on the calls of the kernel's test functions it is attached
//   to, and the retval is the test run's, not the program's (contexts_tracing.cpp).
// Packet programs given no data_in get kDefaultPacketLen zero bytes (the kernel test_loader's TEST_DATA_LEN), on
// every engine: the kernel engine passes the same.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "exec/engine.hpp"
#include "loader/object_spec.hpp"
#include "runtime/context.hpp"
#include "runtime/helpers/xdp_helpers.hpp"

namespace strbpf::exec {

constexpr size_t kDefaultPacketLen = 64; // TEST_DATA_LEN

// This thread's packet page: XdpBuff::kFrameSize * 2 bytes anywhere in the address space (programs reach the
// packet through the ctx models' 64-bit pointers, runtime/ctx_model.hpp), nullptr when it cannot be mapped.
uint8_t* packet_page();

// The number of receive queues of network device `ifindex` (its real_num_rx_queues); 0: no such device.
uint32_t rx_queue_count(uint32_t ifindex);

// The program types whose test-run ctx is ctx_in's bytes themselves (syscall, raw_tp, tp, kprobe), and the
// kernel's rules for such a run: no data_in, and raw_tp's ctx_in at most 12 u64 arguments. TestRunContext::build
// checks them; the embedding API, which registers such a ctx itself, calls this.
bool ctx_is_bytes(loader::ProgType type);
Status check_bytes_ctx(loader::ProgType type, size_t ctx_size, size_t data_size);
// BPF_PROG_TEST_RUN's flags and cpu as the type's test run checks them (-EINVAL for what it refuses); raw_tp's
// BPF_F_TEST_RUN_ON_CPU moves the run to req.cpu (ctx.cpu), -ENXIO for a CPU that is not online.
constexpr uint32_t kTestRunOnCpu = 1u << 0;            // BPF_F_TEST_RUN_ON_CPU
constexpr uint32_t kTestXdpLiveFrames = 1u << 1;       // BPF_F_TEST_XDP_LIVE_FRAMES
constexpr uint32_t kTestSkbChecksumComplete = 1u << 2; // BPF_F_TEST_SKB_CHECKSUM_COMPLETE
Status check_test_attrs(loader::ProgType type, const RunRequest& req, runtime::RunContext& ctx);

// The address bpf_get_func_ip gives for a test function a tracing run calls (bpf_fentry_test1..10,
// bpf_modify_return_test, _test2): strbpf's model of its kernel text address, kModelledTextBase + 0x100 * N for the
// N-th of them in that order (stable, not the running kernel's, which kallsyms would give only to root); 0 for any
// other name.
constexpr uint64_t kModelledTextBase = 0xffffffff81000000;
uint64_t modelled_func_ip(std::string_view func);
// A BPF cookie is given when a link is made: bpf_get_attach_cookie reads it. Runs that model an attached program
// take one (fentry, fexit, fmod_ret; strbpf's own kprobe, tracepoint and perf_event runs); the kernel's test run of
// any other type attaches nothing, so a cookie there is refused (-EINVAL).
Status check_cookie(loader::ProgType type, loader::AttachType attach, uint64_t cookie);

// The regions a test run adds to MEM after it is made are dropped when it goes (the memory they name is the run's).
class RegionsUntilReturn {
  public:
    explicit RegionsUntilReturn(runtime::RunMemory& mem) : mem_(mem), mark_(mem.local_count()) {}
    ~RegionsUntilReturn() { mem_.drop_local_from(mark_); }
    RegionsUntilReturn(const RegionsUntilReturn&) = delete;
    RegionsUntilReturn& operator=(const RegionsUntilReturn&) = delete;

  private:
    runtime::RunMemory& mem_;
    int mark_;
};

// A tracing test run calls the program through this: R1 its ctx, *r0 what it returned; an error ends the run.
using TracingRun = std::function<Status(uint64_t r1, uint64_t* r0)>;
// bpf_prog_test_run_tracing for PROG (a tracing program): runs it through RUN on each call of the test function it
// is attached to and gives the test run's retval; an error is the kernel's refusal (-EINVAL, -EFAULT) or RUN's.
Status tracing_test_run(const loader::ProgramSpec& prog, const RunRequest& req, runtime::RunContext& ctx,
                        const TracingRun& run, uint32_t* retval);

// bpf_struct_ops_test_run for PROG (a struct_ops program of OBJ): runs it through RUN once, as the bpf_dummy_ops
// member it implements is called with ctx_in's arguments (contexts_struct_ops.cpp); the retval is its return. An
// error is the kernel's refusal (-EOPNOTSUPP, -EINVAL, -EFAULT) or RUN's.
Status struct_ops_test_run(const loader::ObjectSpec& obj, const loader::ProgramSpec& prog, const RunRequest& req,
                           runtime::RunContext& ctx, const TracingRun& run, uint32_t* retval);

// The test run of a program the kernel's test run calls itself: tracing_test_run for a tracing program,
// struct_ops_test_run for a struct_ops one (PROG of OBJ).
Status called_test_run(const loader::ObjectSpec& obj, const loader::ProgramSpec& prog, const RunRequest& req,
                       runtime::RunContext& ctx, const TracingRun& run, uint32_t* retval);

// Owns the ctx and packet of one run. build() registers them in ctx.mem; finish() fills the report's outputs.
class TestRunContext {
  public:
    TestRunContext() = default;
    TestRunContext(const TestRunContext&) = delete;
    TestRunContext& operator=(const TestRunContext&) = delete;

    // Ok: *r1 is the program's context argument. Error: the kernel's refusal of such a test run, in words.
    Status build(loader::ProgType type, const RunRequest& req, runtime::RunContext& ctx, uint64_t* r1);
    // Before each repetition of an sk_lookup run: no socket selected, as bpf_prog_test_run_sk_lookup clears it.
    void clear_sk_lookup_selection();
    // Fills the report's outputs. Error: the kernel's refusal of the run's result (an sk_lookup program's
    // SO_REUSEPORT selection without BPF_SK_LOOKUP_F_NO_REUSEPORT: -EOPNOTSUPP).
    Status finish(RunReport* report) const;

  private:
    Status build_args(loader::ProgType type, const RunRequest& req, runtime::RunContext& ctx, uint64_t* r1);
    Status build_xdp(const std::vector<uint8_t>& data_in, runtime::RunContext& ctx, uint64_t* r1);
    Status xdp_ctx_rules(const std::vector<uint8_t>& data_in, uint32_t* meta, uint32_t* linear);
    void finish_xdp(RunReport* report) const;
    Status build_skb(loader::ProgType type, const std::vector<uint8_t>& data_in, runtime::RunContext& ctx,
                     uint64_t* r1);
    Status build_sk_lookup(const RunRequest& req, runtime::RunContext& ctx, uint64_t* r1);
    Status finish_sk_lookup(RunReport* report) const;
    Status build_netfilter(const RunRequest& req, runtime::RunContext& ctx, uint64_t* r1);
    Status build_flow_dissector(const std::vector<uint8_t>& data_in, runtime::RunContext& ctx, uint64_t* r1);
    void finish_flow_dissector(RunReport* report) const;

    loader::ProgType type_ = loader::ProgType::unspec;
    std::vector<uint8_t> ctx_buf_;
    alignas(8) uint8_t ctx_struct_[256] = {}; // skb: the SkbModel; sk_lookup: the SkLookupModel
    alignas(8) uint8_t sock_[80] = {};        // skb: the socket skb->sk points at (runtime::SockModel)
    alignas(8) uint8_t flow_keys_[56] = {};   // flow_dissector: the struct bpf_flow_keys the program fills
    uint8_t* data_ = nullptr;  // what data_out starts with
    uint32_t data_len_ = 0;
    bool skb_ctx_out_ = false; // skb programs given a ctx_in report the __sk_buff back
    uint32_t hh_zero_ = 0;     // socket filters: the Ethernet header the kernel zeroes in data_out
    const runtime::ObjectInstance* inst_ = nullptr; // skb: whose sk storage maps hold the run's socket's values
    runtime::XdpBuff xdp_;     // xdp: the program's ctx is xdp_.model
    std::vector<uint8_t> frag_pages_; // xdp: the frags' pages, XdpBuff::kFrameSize bytes each
};

} // namespace strbpf::exec
