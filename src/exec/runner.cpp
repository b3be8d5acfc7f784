// User-space test runs (exec stage): per-program-type context set-up, like the kernel's bpf_prog_test_run_*.
#include "exec/runner.hpp"

#include <sys/mman.h>

#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "exec/interp/interpreter.hpp"

namespace strbpf::exec {
namespace {

using loader::ProgType;
using runtime::Region;
using runtime::RegionKind;

constexpr uint32_t kXdpHeadroom = 256;   // XDP_PACKET_HEADROOM
constexpr uint32_t kMaxPacket = 65536 - kXdpHeadroom;
constexpr uint32_t kEthHlen = 14;

// Packet memory must be addressable through the 32-bit data/data_end fields of xdp_md and __sk_buff (the
// kernel's verifier rewrites those loads into 64-bit pointer loads; until ours does, packets live below 2 GiB).
struct PacketBuffer {
    uint8_t* base = nullptr;
    size_t size = 0;
    PacketBuffer() {
        size = kXdpHeadroom + kMaxPacket;
        void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
        base = p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
    }
    ~PacketBuffer() {
        if (base)
            munmap(base, size);
    }
};

struct XdpMd { // struct xdp_md
    uint32_t data, data_end, data_meta, ingress_ifindex, rx_queue_index, egress_ifindex;
};

RunReport failed_run(RunReport r, std::string msg) {
    r.ran = false;
    r.error = std::move(msg);
    return r;
}

} // namespace

bool engine_available(EngineKind engine, std::string* why) {
    if (engine == EngineKind::interp)
        return true;
    if (engine == EngineKind::jit) {
        if (why)
            *why = "the JIT engine is not available yet (see the x86-64 JIT issue); use --engine interp";
        return false;
    }
    if (why)
        *why = "the kernel engine is not a user-space engine";
    return false;
}

RunReport run_linked(EngineKind engine, const runtime::ObjectInstance& inst, const runtime::LinkedProgram& prog,
                     const RunRequest& req) {
    RunReport rep;
    rep.prog = prog.spec->name;
    rep.loaded = true;
    if (!prog.linked) {
        rep.loaded = false;
        rep.error = prog.link_error.message;
        return rep;
    }
    std::string why;
    if (!engine_available(engine, &why))
        return failed_run(rep, why);

    runtime::RunContext ctx;
    auto stack = std::make_unique<runtime::StackArea>();
    runtime::prepare_run_context(ctx, &inst, stack.get());

    std::vector<uint8_t> ctx_buf = req.ctx_in;
    uint64_t r1 = 0;
    XdpMd xdp{};
    thread_local PacketBuffer packet;
    uint8_t* data = nullptr;
    uint32_t data_len = 0;

    switch (prog.spec->type) {
    case ProgType::syscall:
    case ProgType::raw_tracepoint:
        if (!req.data_in.empty())
            return failed_run(rep, fmt::format("{} programs take no data_in (the kernel answers -EINVAL)",
                                               loader::prog_type_name(prog.spec->type)));
        if (!ctx_buf.empty()) {
            r1 = reinterpret_cast<uint64_t>(ctx_buf.data());
            const uint8_t perms = prog.spec->type == ProgType::syscall ? runtime::kPermRW : runtime::kPermRead;
            ctx.mem.add_local(Region{r1, ctx_buf.size(), perms, RegionKind::ctx, "ctx"});
        }
        break;
    case ProgType::xdp: {
        if (!packet.base)
            return failed_run(rep, "cannot allocate packet memory below 2 GiB");
        if (req.data_in.size() < kEthHlen || req.data_in.size() > kMaxPacket)
            return failed_run(rep, fmt::format("xdp test runs need {}..{} bytes of data_in (the kernel answers "
                                               "-EINVAL), got {}", kEthHlen, kMaxPacket, req.data_in.size()));
        data = packet.base + kXdpHeadroom;
        data_len = uint32_t(req.data_in.size());
        std::memcpy(data, req.data_in.data(), data_len);
        xdp.data = uint32_t(reinterpret_cast<uint64_t>(data));
        xdp.data_end = xdp.data + data_len;
        xdp.data_meta = xdp.data;
        xdp.ingress_ifindex = 1; // loopback, as the kernel's test run reports
        if (!ctx_buf.empty() && ctx_buf.size() != sizeof(XdpMd))
            return failed_run(rep, "xdp ctx_in must be a struct xdp_md (24 bytes)");
        if (!ctx_buf.empty()) {
            XdpMd in;
            std::memcpy(&in, ctx_buf.data(), sizeof in);
            xdp.rx_queue_index = in.rx_queue_index;
        }
        r1 = reinterpret_cast<uint64_t>(&xdp);
        ctx.mem.add_local(Region{r1, sizeof xdp, runtime::kPermRead, RegionKind::ctx, "xdp_md"});
        ctx.mem.add_local(Region{reinterpret_cast<uint64_t>(data), data_len, runtime::kPermRW, RegionKind::packet,
                                 "packet"});
        break;
    }
    default:
        return failed_run(rep, fmt::format("test runs of {} programs come with the maps-and-helpers issue",
                                           loader::prog_type_name(prog.spec->type)));
    }

    const uint32_t repeat = req.repeat == 0 ? 1 : req.repeat;
    interp::InterpResult res{};
    const auto t0 = std::chrono::steady_clock::now();
    for (uint32_t i = 0; i < repeat; i++) {
        res = interp::run(prog.insns, r1, 0, ctx, *stack);
        if (!res.ok)
            break;
    }
    const auto t1 = std::chrono::steady_clock::now();
    if (!res.ok)
        return failed_run(rep, res.error);
    rep.ran = true;
    rep.r0 = res.r0;
    rep.retval = uint32_t(res.r0);
    rep.duration_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()) / repeat;
    if (data)
        rep.data_out.assign(data, data + data_len);
    if (prog.spec->type == ProgType::syscall)
        rep.ctx_out = ctx_buf;
    return rep;
}

RunReport run_fresh(EngineKind engine, std::shared_ptr<const loader::ObjectSpec> spec, const std::string& prog,
                    const RunRequest& req) {
    RunReport rep;
    rep.prog = prog;
    auto inst = runtime::ObjectInstance::create(spec, req.globals);
    if (!inst) {
        rep.error = inst.error().message;
        return rep;
    }
    const runtime::LinkedProgram* lp = inst.value()->find_program(prog);
    if (!lp) {
        rep.error = fmt::format("no program '{}' in {}", prog, spec->path);
        return rep;
    }
    if (!lp->linked) {
        rep.error = lp->link_error.message;
        return rep;
    }
    return run_linked(engine, *inst.value(), *lp, req);
}

} // namespace strbpf::exec
