// SPDX-License-Identifier: BSD-2-Clause
// The embedder's helpers, kfuncs and program types (runtime stage): their rows checked as the kernel checks a
// bpf_func_proto (check_func_proto: memory arguments paired with a size, a map argument before a map key or value),
// the process-wide slots linked programs call, the argument-checking entries of the checked interpreter, and the
// per-type rows the verifier reads.
#include "runtime/extensions.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"
#include "runtime/kfuncs/verify_only.hpp"
#include "runtime/maps/map.hpp"

namespace strbpf::runtime {
namespace {

// One slot per live embedder helper. `entry` is what helper_fn() answers: the embedder's function itself, or for a
// helper with a declared return range the slot's checking entry, which ends the run on a value outside it (the
// verifier assumed the range, so a value outside could break what it proved).
struct Slot {
    std::atomic<HelperFn> entry{nullptr};
    HelperFn user = nullptr;
    int64_t lo = 0, hi = 0;
    const ExtHelper* helper = nullptr;
    const ExtKfunc* kfunc = nullptr;
};
Slot g_slots[kMaxExtSlots];
bool g_used[kMaxExtSlots];
std::mutex g_slots_mu;

template <size_t N>
uint64_t checked_entry(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx) {
    const Slot& s = g_slots[N];
    const uint64_t v = s.user(r1, r2, r3, r4, r5, ctx);
    if (int64_t(v) < s.lo || int64_t(v) > s.hi) [[unlikely]]
        ctx->abort(fmt::format("helper {}#{} returned {}, outside its declared range [{}, {}]", s.helper->name,
                               s.helper->proto.id, int64_t(v), s.lo, s.hi));
    return v;
}
template <size_t... N> constexpr std::array<HelperFn, sizeof...(N)> checked_entries(std::index_sequence<N...>) {
    return {checked_entry<N>...};
}
constexpr auto kChecked = checked_entries(std::make_index_sequence<kMaxExtSlots>{});

int alloc_slot() {
    std::lock_guard<std::mutex> lock(g_slots_mu);
    for (size_t i = 0; i < kMaxExtSlots; i++)
        if (!g_used[i]) {
            g_used[i] = true;
            return int(i);
        }
    return -1;
}

void free_slot(int32_t slot_id) {
    const size_t i = size_t(slot_id - kExtSlotBase);
    std::lock_guard<std::mutex> lock(g_slots_mu);
    g_slots[i].entry.store(nullptr, std::memory_order_release);
    g_slots[i].helper = nullptr;
    g_slots[i].kfunc = nullptr;
    g_used[i] = false;
}

bool is_mem(ArgKind k) {
    return k == ArgKind::ptr_to_mem || k == ArgKind::ptr_to_mem_rdonly || k == ArgKind::ptr_to_mem_rdonly_or_null ||
           k == ArgKind::ptr_to_uninit_mem;
}
bool is_size(ArgKind k) { return k == ArgKind::const_size || k == ArgKind::const_size_or_zero; }

// The kinds an embedder's helper may take: those strbpf's verifier models, but callbacks, ring buffer
// reservations and allocation sizes, which only their own helpers' special cases give a meaning.
bool embedder_arg_ok(ArgKind k) {
    return arg_kind_modelled(k) && k != ArgKind::ptr_to_func && k != ArgKind::ptr_to_ringbuf_mem &&
           k != ArgKind::const_alloc_size_or_zero;
}

// check_func_proto's rules (check_raw_mode_ok, check_arg_pair_ok) plus the map arguments' order.
std::string proto_problem(const std::array<ArgKind, 5>& args, RetKind ret) {
    bool map = false, ended = false;
    for (size_t i = 0; i < args.size(); i++) {
        const ArgKind k = args[i];
        if (k == ArgKind::none) {
            ended = true;
            continue;
        }
        if (ended)
            return fmt::format("argument {} follows an absent one", i + 1);
        if (!embedder_arg_ok(k))
            return fmt::format("argument {} ({}) is not a kind an embedder's helper may take", i + 1,
                               arg_kind_name(k));
        if (is_mem(k) && (i + 1 == args.size() || !is_size(args[i + 1])))
            return fmt::format("argument {} (a memory pointer) must be followed by its size", i + 1);
        if (is_size(k) && (i == 0 || !is_mem(args[i - 1])))
            return fmt::format("argument {} (a size) must follow a memory pointer", i + 1);
        if ((k == ArgKind::ptr_to_map_key || k == ArgKind::ptr_to_map_value || k == ArgKind::ptr_to_uninit_map_value) &&
            !map)
            return fmt::format("argument {} (a map key or value) must follow a map argument", i + 1);
        map = map || k == ArgKind::const_map_ptr;
    }
    if (ret == RetKind::map_value_or_null && !map)
        return "a map value return needs a map argument";
    if (ret != RetKind::integer && ret != RetKind::void_ && ret != RetKind::map_value_or_null)
        return fmt::format("the return kind {} is not one an embedder's helper may have", ret_kind_name(ret));
    return {};
}

bool is_pointer(ExtKfuncArg k) {
    return k == ExtKfuncArg::mem || k == ExtKfuncArg::mem_sized || k == ExtKfuncArg::const_str ||
           k == ExtKfuncArg::ctx;
}

// What the kernel's check_kfunc_args could not read or refuses for every call (a pair without its size, a second
// constant, a KF_* flag without the pointer it needs).
std::string kfunc_problem(const ExtKfunc& k) {
    if (k.params.size() > 5)
        return fmt::format("{} parameters, at most 5", k.params.size());
    int constants = 0;
    bool pointer = false;
    for (size_t i = 0; i < k.params.size(); i++) {
        const ExtKfuncArg a = k.params[i].kind;
        const bool sized = a == ExtKfuncArg::size || a == ExtKfuncArg::const_size;
        if (a > ExtKfuncArg::ctx)
            return fmt::format("argument {} has an unknown kind", i + 1);
        if (a == ExtKfuncArg::mem_sized &&
            (i + 1 == k.params.size() || (k.params[i + 1].kind != ExtKfuncArg::size &&
                                          k.params[i + 1].kind != ExtKfuncArg::const_size)))
            return fmt::format("argument {} (a sized memory pointer) must be followed by its size", i + 1);
        if (sized && (i == 0 || k.params[i - 1].kind != ExtKfuncArg::mem_sized))
            return fmt::format("argument {} (a size) must follow a sized memory pointer", i + 1);
        if (a == ExtKfuncArg::mem && k.params[i].mem_size == 0)
            return fmt::format("argument {} (memory) needs its mem_size", i + 1);
        if (k.params[i].nullable && !is_pointer(a))
            return fmt::format("argument {} is nullable but no pointer", i + 1);
        constants += a == ExtKfuncArg::constant || a == ExtKfuncArg::const_size;
        pointer = pointer || a == ExtKfuncArg::mem || a == ExtKfuncArg::mem_sized;
    }
    if (constants > 1)
        return "only one constant argument is permitted";
    if (k.ret > ExtKfuncRet::mem)
        return "unknown return kind";
    if ((k.ret == ExtKfuncRet::mem) != (k.ret_size > 0))
        return "a memory return needs its ret_size, and only it has one";
    if ((k.flags & (kExtKfAcquire | kExtKfRetNull)) && k.ret != ExtKfuncRet::mem)
        return "KF_ACQUIRE and KF_RET_NULL need a memory return";
    if ((k.flags & kExtKfRelease) && !pointer)
        return "KF_RELEASE needs a memory argument to release";
    if ((k.flags & (kExtKfTrustedArgs | kExtKfRcu)) &&
        std::none_of(k.params.begin(), k.params.end(), [](const ExtKfuncParam& p) { return is_pointer(p.kind); }))
        return "KF_TRUSTED_ARGS and KF_RCU need a pointer argument";
    if (k.flags & ~(kExtKfAcquire | kExtKfRelease | kExtKfRetNull | kExtKfTrustedArgs | kExtKfRcu))
        return "only KF_ACQUIRE, KF_RELEASE, KF_RET_NULL, KF_TRUSTED_ARGS and KF_RCU are modelled";
    return {};
}


// ---- Calls from the checked interpreter ------------------------------------------------------------------------
// An unverified program's call of an embedder's helper or kfunc: each argument checked against the run's memory
// by its declared kind, as the verifier would have proved it, before the embedder's function sees it. A kfunc's
// returned memory becomes a local region of the run (so the program's accesses through R0 are checked too); the
// references KF_ACQUIRE kfuncs return are held per run, so a release must name one and a released object's region
// is refused from then on.

struct Held {
    const RunContext* run = nullptr;
    uint64_t ptr = 0;
    const ExtKfunc* by = nullptr;
};
thread_local std::vector<Held> t_held; // a run is on one thread; nested runs have their own RunContext

constexpr const char* kKfuncRegion = "embedder kfunc memory";

std::string callee_name(const Slot& s) {
    return s.kfunc ? fmt::format("kfunc {}", s.kfunc->name) : fmt::format("helper {}#{}", s.helper->name, s.helper->proto.id);
}

bool stop_call(RunContext& run, const Slot& s, size_t arg, const std::string& why) {
    run.abort(fmt::format("the embedder's {}: argument {} {}", callee_name(s), arg + 1, why));
    return false;
}

bool mem_arg(RunContext& run, const Slot& s, size_t arg, uint64_t p, uint64_t n, uint8_t perms, bool null_ok) {
    if (p == 0 && null_ok)
        return true;
    if (n != 0 && !run.mem.check(p, n, perms)) // zero bytes: nothing is read or written
        return stop_call(run, s, arg, fmt::format("({:#x}, {} bytes) is not memory the program may {}", p, n,
                                                  perms & kPermWrite ? "write" : "read"));
    return true;
}

bool str_arg(RunContext& run, const Slot& s, size_t arg, uint64_t p) {
    const uint64_t span = run.mem.readable_span(p);
    if (span == 0 || !std::memchr(reinterpret_cast<const void*>(p), 0, span))
        return stop_call(run, s, arg, fmt::format("({:#x}) is no NUL-terminated string in readable memory", p));
    return true;
}

bool ctx_arg(RunContext& run, const Slot& s, size_t arg, uint64_t p) {
    const Region* r = run.mem.find(p);
    if (!r || r->kind != RegionKind::ctx || r->base != p)
        return stop_call(run, s, arg, fmt::format("({:#x}) is not the program's ctx", p));
    return true;
}

bool helper_args(RunContext& run, const Slot& s, const uint64_t* regs) {
    const std::array<ArgKind, 5>& args = s.helper->proto.args;
    const Map* map = nullptr;
    for (size_t i = 0; i < args.size(); i++) {
        const ArgKind k = args[i];
        const uint64_t p = regs[i], n = i + 1 < args.size() ? regs[i + 1] : 0;
        const bool zero_ok = i + 1 < args.size() && args[i + 1] == ArgKind::const_size_or_zero;
        bool ok = true;
        if (is_mem(k) && n == 0 && !zero_ok)
            return stop_call(run, s, i + 1, "(a size) is 0");
        switch (k) {
        case ArgKind::ptr_to_mem: ok = mem_arg(run, s, i, p, n, kPermRW, false); break;
        case ArgKind::ptr_to_mem_rdonly: ok = mem_arg(run, s, i, p, n, kPermRead, false); break;
        case ArgKind::ptr_to_mem_rdonly_or_null: ok = mem_arg(run, s, i, p, n, kPermRead, n == 0); break;
        case ArgKind::ptr_to_uninit_mem: ok = mem_arg(run, s, i, p, n, kPermWrite, false); break;
        case ArgKind::ptr_to_const_str: ok = str_arg(run, s, i, p); break;
        case ArgKind::ptr_to_ctx: ok = ctx_arg(run, s, i, p); break;
        case ArgKind::ptr_to_long: ok = p % 8 == 0 && mem_arg(run, s, i, p, 8, kPermWrite, false); break;
        case ArgKind::ptr_to_stack_or_null: {
            const Region* r = p ? run.mem.find(p) : nullptr;
            if (p && (!r || r->kind != RegionKind::stack))
                return stop_call(run, s, i, fmt::format("({:#x}) is neither NULL nor on the stack", p));
            break;
        }
        case ArgKind::const_map_ptr:
            if (!run.instance || !run.instance->is_map(p))
                return stop_call(run, s, i, fmt::format("({:#x}) is no map of the object", p));
            map = reinterpret_cast<const Map*>(p);
            break;
        case ArgKind::ptr_to_map_key:
            ok = map && mem_arg(run, s, i, p, map->spec().key_size, kPermRead, false);
            break;
        case ArgKind::ptr_to_map_value:
            ok = map && mem_arg(run, s, i, p, map->spec().value_size, kPermRead, false);
            break;
        default: break;
        }
        if (!ok)
            return false;
    }
    return true;
}

// The reference the release kfunc's pointer argument P names; nullptr when the run holds none at P.
Held* held_at(const RunContext& run, uint64_t p) {
    for (Held& h : t_held)
        if (h.run == &run && h.ptr == p)
            return &h;
    return nullptr;
}

// The region a kfunc's returned memory got (our own, at its base), for reuse and for refusing it once released.
Region* own_region(RunContext& run, uint64_t p) {
    Region* r = run.mem.find_mutable(p); // the run's own local region: RunContext is not const here
    if (!r || r->base != p || r->name != kKfuncRegion)
        return nullptr;
    return r;
}

bool kfunc_args(RunContext& run, const Slot& s, const uint64_t* regs, uint64_t* released) {
    const ExtKfunc& k = *s.kfunc;
    for (size_t i = 0; i < k.params.size(); i++) {
        const ExtKfuncParam& p = k.params[i];
        const uint64_t v = regs[i];
        bool ok = true;
        switch (p.kind) {
        case ExtKfuncArg::mem: // NULL as the verifier lets it through: always, unless the flags want trusted args
            ok = mem_arg(run, s, i, v, p.mem_size, kPermRW,
                         p.nullable || !(k.flags & (kExtKfTrustedArgs | kExtKfRcu | kExtKfRelease)));
            break;
        case ExtKfuncArg::mem_sized: ok = mem_arg(run, s, i, v, i + 1 < 5 ? regs[i + 1] : 0, kPermRW, p.nullable); break;
        case ExtKfuncArg::const_str: ok = str_arg(run, s, i, v); break;
        case ExtKfuncArg::ctx: ok = ctx_arg(run, s, i, v); break;
        default: break;
        }
        if (!ok)
            return false;
        if ((k.flags & kExtKfRelease) && !*released && (p.kind == ExtKfuncArg::mem || p.kind == ExtKfuncArg::mem_sized) &&
            v && held_at(run, v))
            *released = v;
    }
    if ((k.flags & kExtKfRelease) && !*released)
        return stop_call(run, s, 0, "releases no reference this run holds (the kernel's verifier refuses: release "
                                    "kernel function expects refcounted PTR_TO_BTF_ID)");
    return true;
}

// After a kfunc returned: its memory registered (or re-opened, when the same object comes back), its reference
// held; a released reference dropped and its memory refused.
void kfunc_after(RunContext& run, const ExtKfunc& k, uint64_t r0, uint64_t released) {
    if (released) {
        std::erase_if(t_held, [&](const Held& h) { return h.run == &run && h.ptr == released; });
        if (Region* r = own_region(run, released))
            r->perms = 0;
    }
    if (k.ret != ExtKfuncRet::mem || r0 == 0)
        return;
    if (Region* r = own_region(run, r0)) {
        r->size = k.ret_size;
        r->perms = kPermRW;
    } else if (!run.mem.find(r0) &&
               !run.mem.add_local(Region{r0, k.ret_size, kPermRW, RegionKind::other, kKfuncRegion})) {
        run.abort(fmt::format("the embedder's kfunc {} returned memory the run has no region left for", k.name));
        return;
    }
    if (k.flags & kExtKfAcquire)
        t_held.push_back(Held{&run, r0, &k});
}

template <size_t N>
uint64_t arg_checked_entry(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5, RunContext* ctx) {
    const Slot& s = g_slots[N];
    const uint64_t regs[5] = {r1, r2, r3, r4, r5};
    uint64_t released = 0;
    if (s.kfunc ? !kfunc_args(*ctx, s, regs, &released) : !helper_args(*ctx, s, regs))
        return 0;
    const uint64_t v = s.entry.load(std::memory_order_acquire)(r1, r2, r3, r4, r5, ctx);
    if (s.kfunc && !ctx->aborted)
        kfunc_after(*ctx, *s.kfunc, v, released);
    return v;
}
template <size_t... N> constexpr std::array<HelperFn, sizeof...(N)> arg_checked_entries(std::index_sequence<N...>) {
    return {arg_checked_entry<N>...};
}
constexpr auto kArgChecked = arg_checked_entries(std::make_index_sequence<kMaxExtSlots>{});

} // namespace

HelperFn ext_slot_fn(int32_t id) {
    const uint32_t i = uint32_t(id) - uint32_t(kExtSlotBase);
    return i < kMaxExtSlots ? g_slots[i].entry.load(std::memory_order_acquire) : nullptr;
}

HelperFn ext_checked_fn(int32_t id) {
    const uint32_t i = uint32_t(id) - uint32_t(kExtSlotBase);
    if (i < kMaxExtSlots && g_slots[i].entry.load(std::memory_order_acquire))
        return kArgChecked[i];
    return helper_fn(id);
}

bool ExtProgType::writable() const {
    return std::any_of(fields.begin(), fields.end(), [](const ExtCtxField& f) { return f.writable; });
}

Extensions::~Extensions() {
    for (const auto& h : helpers_)
        free_slot(h->slot_id);
    for (const auto& k : kfuncs_)
        free_slot(k->slot_id);
}

Status Extensions::add_kfunc(ExtKfunc def) {
    auto bad = [&](const std::string& why, int code = -EINVAL) {
        return make_error(fmt::format("kfunc '{}': {}", def.name, why), code);
    };
    if (frozen_)
        return bad("the extensions are in use by an object already", -EBUSY);
    if (def.name.empty() || !def.fn)
        return bad("a kfunc needs a name and a function");
    if (find_kfunc(def.name) || verify_only_kfunc_index(def.name) >= 0 || kfunc(def.name))
        return bad("a kfunc of this name exists", -EEXIST);
    if (std::string p = kfunc_problem(def); !p.empty())
        return bad(p);
    if (def.kernel_types & ~((ProgTypeSet(1) << 33) - 1))
        return bad("kernel program types are enum bpf_prog_type values below 33");
    const int slot = alloc_slot();
    if (slot < 0)
        return bad(fmt::format("the process has {} embedder helpers and kfuncs already", kMaxExtSlots), -E2BIG);
    auto k = std::make_unique<ExtKfunc>(std::move(def));
    k->slot_id = kExtSlotBase + slot;
    Slot& s = g_slots[slot];
    s.user = k->fn;
    s.helper = nullptr;
    s.kfunc = k.get();
    s.entry.store(k->fn, std::memory_order_release);
    kfuncs_.push_back(std::move(k));
    return ok_status();
}

const ExtKfunc* Extensions::kfunc(std::string_view name) const {
    for (const auto& k : kfuncs_)
        if (k->name == name)
            return k.get();
    return nullptr;
}

const ExtKfunc* Extensions::kfunc_by_slot(int32_t id) const {
    for (const auto& k : kfuncs_)
        if (k->slot_id == id)
            return k.get();
    return nullptr;
}

bool Extensions::kfunc_allowed(const ExtKfunc& k, loader::ProgType t) const {
    if (const ExtProgType* pt = prog_type(t))
        return std::find(pt->kfuncs.begin(), pt->kfuncs.end(), k.name) != pt->kfuncs.end();
    return (k.kernel_types & prog_type_bit(t)) != 0;
}

Status Extensions::add_helper(std::string name, int32_t id, HelperFn fn, RetKind ret,
                              const std::array<ArgKind, 5>& args, std::optional<ExtRange> ret_range, bool gpl_only,
                              ProgTypeSet kernel_types) {
    auto bad = [&](const std::string& why, int code = -EINVAL) {
        return make_error(fmt::format("helper '{}' (id {}): {}", name, id, why), code);
    };
    if (frozen_)
        return bad("the extensions are in use by an object already", -EBUSY);
    if (name.empty() || !fn)
        return bad("a helper needs a name and a function");
    if (id < kExtHelperIdMin || id > kExtHelperIdMax)
        return bad(fmt::format("ids of an embedder's helpers are {:#x}..{:#x}", kExtHelperIdMin, kExtHelperIdMax));
    for (const auto& h : helpers_)
        if (h->proto.id == id || h->name == name)
            return bad("another helper has this id or name", -EEXIST);
    if (std::string p = proto_problem(args, ret); !p.empty())
        return bad(p);
    if (ret_range && (ret != RetKind::integer || ret_range->lo > ret_range->hi))
        return bad("a return range needs an integer return and min <= max");
    if (kernel_types & ~((ProgTypeSet(1) << 33) - 1))
        return bad("kernel program types are enum bpf_prog_type values below 33");
    const int slot = alloc_slot();
    if (slot < 0)
        return bad(fmt::format("the process has {} embedder helpers already", kMaxExtSlots), -E2BIG);
    auto h = std::make_unique<ExtHelper>();
    h->name = std::move(name);
    h->user_fn = fn;
    h->ret_range = ret_range;
    h->slot_id = kExtSlotBase + slot;
    h->proto = HelperProto{id, h->name.c_str(), ret_range ? kChecked[size_t(slot)] : fn, ret, args, gpl_only,
                           kernel_types, false, 0};
    Slot& s = g_slots[slot];
    s.user = fn;
    s.lo = ret_range ? ret_range->lo : 0;
    s.hi = ret_range ? ret_range->hi : 0;
    s.helper = h.get();
    s.kfunc = nullptr;
    s.entry.store(h->proto.fn, std::memory_order_release);
    helpers_.push_back(std::move(h));
    return ok_status();
}

Status Extensions::add_prog_type(std::string name, std::string section, uint32_t ctx_size,
                                 std::vector<ExtCtxField> fields, std::optional<ExtRange> ret_range,
                                 std::vector<int32_t> helpers, std::vector<std::string> kfuncs) {
    auto bad = [&](const std::string& why, int code = -EINVAL) {
        return make_error(fmt::format("program type '{}': {}", name, why), code);
    };
    if (frozen_)
        return bad("the extensions are in use by an object already", -EBUSY);
    if (name.empty() || section.empty() || section.find('/') != std::string::npos)
        return bad("a program type needs a name and a section name without '/'");
    if (loader::find_section_def(section) || loader::find_section_def(section + "/"))
        return bad(fmt::format("libbpf gives section '{}' a program type of its own", section));
    if (types_.size() == kExtProgTypeEnd - kExtProgTypeFirst)
        return bad("too many program types", -E2BIG);
    for (const auto& t : types_)
        if (t->name == name || t->section == section)
            return bad("another program type has this name or section", -EEXIST);
    if (ctx_size == 0 || ctx_size > 65535)
        return bad("the ctx size must be 1..65535 bytes");
    std::sort(fields.begin(), fields.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
    for (size_t i = 0; i < fields.size(); i++) {
        const ExtCtxField& f = fields[i];
        if (f.size == 0 || uint64_t(f.offset) + f.size > ctx_size)
            return bad(fmt::format("ctx field at offset {} ({} bytes) is empty or past the ctx", f.offset, f.size));
        if (i > 0 && fields[i - 1].offset + fields[i - 1].size > f.offset)
            return bad(fmt::format("ctx fields at offsets {} and {} overlap", fields[i - 1].offset, f.offset));
    }
    if (ret_range && ret_range->lo > ret_range->hi)
        return bad("the return range needs min <= max");
    auto t = std::make_unique<ExtProgType>();
    t->name = std::move(name);
    t->section = std::move(section);
    t->type = loader::ProgType(kExtProgTypeFirst + types_.size());
    t->ctx_size = ctx_size;
    t->fields = std::move(fields);
    t->ret_range = ret_range;
    t->helpers = std::move(helpers);
    t->kfuncs = std::move(kfuncs);
    types_.push_back(std::move(t));
    return ok_status();
}

Status Extensions::freeze() {
    if (frozen_)
        return ok_status();
    for (auto& t : types_) {
        for (const std::string& k : t->kfuncs)
            if (!kfunc(k))
                return make_error(fmt::format("program type '{}': no kfunc of the set is named '{}'", t->name, k),
                                  -EINVAL);
        t->rows.clear();
        for (int32_t id : t->helpers) {
            const HelperProto* row = find_helper(id);
            if (const ExtHelper* e = helper_by_id(id))
                row = &e->proto;
            else if (!row)
                return make_error(fmt::format("program type '{}': no helper has id {}", t->name, id), -EINVAL);
            // A kernel helper that reads its program's ctx (skb, xdp, perf and tail-call helpers) would read this
            // type's ctx as a kernel struct: refused.
            if (id < kExtHelperIdMin &&
                (row->pkt_access || (row->flags & kChangesPktData) ||
                 std::find(row->args.begin(), row->args.end(), ArgKind::ptr_to_ctx) != row->args.end()))
                return make_error(fmt::format("program type '{}': {}#{} reads its program type's ctx, which this "
                                              "type does not have",
                                              t->name, row->name, id),
                                  -EINVAL);
            HelperProto r = *row;
            r.prog_types |= prog_type_bit(t->type);
            t->rows.push_back(r);
        }
    }
    frozen_ = true;
    return ok_status();
}

const ExtHelper* Extensions::helper_by_id(int32_t id) const {
    for (const auto& h : helpers_)
        if (h->proto.id == id)
            return h.get();
    return nullptr;
}

const ExtHelper* Extensions::helper_by_slot(int32_t id) const {
    for (const auto& h : helpers_)
        if (h->slot_id == id)
            return h.get();
    return nullptr;
}

const ExtProgType* Extensions::prog_type(loader::ProgType t) const {
    const uint32_t i = uint32_t(t) - kExtProgTypeFirst;
    return i < types_.size() ? types_[i].get() : nullptr;
}

const ExtProgType* Extensions::prog_type_for_section(std::string_view sec) const {
    for (const auto& t : types_)
        if (sec == t->section || (sec.size() > t->section.size() && sec.starts_with(t->section) &&
                                  sec[t->section.size()] == '/'))
            return t.get();
    return nullptr;
}

const HelperProto* Extensions::resolve(int32_t id, loader::ProgType t, const HelperProto* builtin) const {
    if (const ExtProgType* pt = prog_type(t))
        for (const HelperProto& r : pt->rows)
            if (r.id == id)
                return &r;
    if (builtin)
        return builtin;
    const ExtHelper* e = helper_by_id(id);
    return e ? &e->proto : nullptr;
}

} // namespace strbpf::runtime

namespace strbpf::runtime {

void ext_checked_run_begin(const RunContext& run) {
    std::erase_if(t_held, [&](const Held& h) { return h.run == &run; });
}

std::string ext_checked_run_end(const RunContext& run) {
    std::string leak;
    for (const Held& h : t_held)
        if (h.run == &run && leak.empty())
            leak = fmt::format("the run ended holding the reference {} returned ({:#x}): the kernel's verifier refuses "
                               "the program (Unreleased reference)",
                               h.by->name, h.ptr);
    ext_checked_run_begin(run);
    return leak;
}

} // namespace strbpf::runtime
