// SPDX-License-Identifier: BSD-2-Clause
// The graph kfuncs (verifier stage): graph.hpp says what is modelled. The rules are Linux 6.18's check_kfunc_call
// and check_kfunc_args for KF_ARG_PTR_TO_LIST_HEAD / _LIST_NODE / _RB_ROOT / _RB_NODE / _CALLBACK /
// _REFCOUNTED_KPTR (__process_kf_arg_ptr_to_graph_root / _node, check_reg_allocation_locked), check_func_arg_reg_off,
// ref_convert_owning_non_owning, ref_set_non_owning, mark_reg_graph_node, set_rbtree_add_callback_state and
// invalidate_non_owning_refs, written from reading them, in their order and words.
#include "verifier/graph.hpp"

#include <bpf/btf.h>
#include <cstring>
#include <fmt/format.h>

#include "loader/btf_view.hpp"
#include "verifier/alloc_obj.hpp"
#include "verifier/domain/scalar.hpp"
#include "verifier/kfunc_btf.hpp"
#include "verifier/kptr.hpp"

namespace strbpf::verifier {
namespace {

enum class G : uint8_t {
    push_front,
    push_back,
    pop_front,
    pop_back,
    rb_add,
    rb_remove,
    rb_first,
    list_front, // the 6.16 accessors: a non-owning pointer to a node left in place
    list_back,
    rb_root,
    rb_left,
    rb_right,
    refcount_acquire,
};

struct GraphKfunc {
    std::string_view name;
    G g;
    uint32_t flags; // kKf*
};

using namespace std::string_view_literals;
constexpr GraphKfunc kGraphKfuncs[] = {
    {"bpf_list_push_front_impl"sv, G::push_front, 0},
    {"bpf_list_push_back_impl"sv, G::push_back, 0},
    {"bpf_list_pop_front"sv, G::pop_front, kKfAcquire | kKfRetNull},
    {"bpf_list_pop_back"sv, G::pop_back, kKfAcquire | kKfRetNull},
    {"bpf_rbtree_add_impl"sv, G::rb_add, 0},
    {"bpf_rbtree_remove"sv, G::rb_remove, kKfAcquire | kKfRetNull},
    {"bpf_rbtree_first"sv, G::rb_first, kKfRetNull},
    {"bpf_refcount_acquire_impl"sv, G::refcount_acquire, kKfAcquire | kKfRetNull | kKfRcu},
    {"bpf_list_front"sv, G::list_front, kKfRetNull},
    {"bpf_list_back"sv, G::list_back, kKfRetNull},
    {"bpf_rbtree_root"sv, G::rb_root, kKfRetNull},
    {"bpf_rbtree_left"sv, G::rb_left, kKfRetNull},
    {"bpf_rbtree_right"sv, G::rb_right, kKfRetNull},
};

const GraphKfunc* find_graph(std::string_view name) {
    for (const GraphKfunc& k : kGraphKfuncs)
        if (k.name == name)
            return &k;
    return nullptr;
}

bool is_list(G g) {
    return g == G::push_front || g == G::push_back || g == G::pop_front || g == G::pop_back || g == G::list_front ||
           g == G::list_back;
}

// Calls whose node argument may be non-owning (or an owning refcounted one), refused in an rbtree callback.
bool takes_placed_node(G g) { return g == G::rb_remove || g == G::rb_left || g == G::rb_right; }

// Calls that give a non-owning pointer to a node they leave in place.
bool peeks(G g) {
    return g == G::rb_first || g == G::list_front || g == G::list_back || g == G::rb_root || g == G::rb_left ||
           g == G::rb_right;
}

const char* graph_kfunc_name(G g);

std::string_view kfunc_name_at(const Env& env, const isa::Insn& insn) {
    const auto& names = env.facts.inst.spec().kfuncs;
    if (insn.src != isa::BPF_PSEUDO_KFUNC_CALL || insn.imm < 0 || size_t(insn.imm) >= names.size())
        return {};
    return names[size_t(insn.imm)];
}

std::string struct_name(BtfRef b, uint32_t id) {
    const btf_type* t = b ? btfv::type_by_id(b, id) : nullptr;
    return t ? btfv::name_by_offset(b, t->name_off) : "";
}

// The exact types the graph arguments take: PTR_TO_BTF_ID | MEM_ALLOC with no other flag, not NULL.
bool exact_alloc(const Reg& r) { return is_alloc_obj(r) && r.btf_flags == kBtfAlloc && !r.maybe_null; }
bool non_owning(const Reg& r) { return is_alloc_obj(r) && (r.btf_flags & kBtfNonOwn) && !r.maybe_null; }

// check_func_arg_reg_off for an argument that is no release argument: map values, stack and memory pointers and
// scalars pass; an object (owning or not, also MEM_RCU when non-owning) may carry a fixed offset; every other
// pointer (a maybe-NULL one, a function) must be unmodified.
bool graph_arg_reg_off(Env& env, const Reg& r, int regno) {
    const RegType t = r.type;
    if (!r.maybe_null && (t == RegType::stack || t == RegType::packet || t == RegType::packet_meta ||
                          t == RegType::map_key || t == RegType::map_value || t == RegType::scalar ||
                          (t == RegType::mem && !r.maybe_null) || t == RegType::arena))
        return true;
    const uint8_t f = r.btf_flags;
    const bool fixed_ok = t == RegType::btf_id && !r.maybe_null &&
                          (f == 0 || f == kBtfAlloc || f == kBtfTrusted || f == kBtfRcu ||
                           f == (kBtfAlloc | kBtfNonOwn) || f == (kBtfAlloc | kBtfNonOwn | kBtfRcu));
    if (r.off < 0)
        return env.fail(fmt::format("negative offset {} ptr R{} off={} disallowed", reg_type_str(r), regno, r.off));
    if (!fixed_ok && r.off)
        return env.fail(
            fmt::format("dereference of modified {} ptr R{} off={} disallowed", reg_type_str(r), regno, r.off));
    if (!r.var.is_const() || r.var.value != 0)
        return env.fail(fmt::format("variable {} access var_off={} disallowed", reg_type_str(r), tnum_str(r.var)));
    return true;
}

// The live 6.18 kernel's first check of a graph kfunc's pointer argument ARGNO, as for KF_TRUSTED_ARGS: NULL or a
// maybe-NULL pointer is refused before any type check.
bool not_null_arg(Env& env, const Reg& r, int argno) {
    if (is_null_const(r) || (r.is_pointer() && r.maybe_null))
        return env.fail(fmt::format("Possibly NULL pointer passed to trusted arg{}", argno));
    return true;
}

// check_reg_allocation_locked: the held lock is the one of the allocation R points into (the map, or an object, and
// the pointer's id).
bool allocation_locked(Env& env, const Reg& r) {
    const LockState& lock = env.path.cur.lock;
    if (!lock.held())
        return false;
    const bool same = r.type == RegType::map_value ? (!lock.obj && lock.map == int32_t(r.aux) && lock.id == r.id)
                                                   : (lock.obj && lock.id == r.id);
    if (!same)
        env.note("held lock and object are not in the same allocation");
    return same;
}

// KF_ARG_PTR_TO_LIST_HEAD / _RB_ROOT (argument 0, R1): a map value or an owned object, the root at a constant
// offset, its lock held. The root's field in *ROOT.
bool check_root(Env& env, G g, const loader::SpecialStruct** root) {
    const Reg r = env.path.cur.cur().regs[1];
    if (!check_reg_init(env, 1) || !not_null_arg(env, r, 0) || !graph_arg_reg_off(env, r, 1))
        return false;
    const bool obj = exact_alloc(r);
    if ((r.type != RegType::map_value || r.maybe_null) && !obj)
        return env.fail("arg#0 expected pointer to map value or allocated object");
    if (obj && !r.ref_obj_id)
        return env.fail("allocated object must be referenced");
    const char* root_name = is_list(g) ? "bpf_list_head" : "bpf_rb_root";
    if (!r.var.is_const())
        return env.fail(fmt::format("R1 doesn't have constant offset. {} has to be at the constant offset", root_name));
    const loader::ValueFields* rec = reg_record(env, r);
    const int64_t off = int64_t(r.off) + int64_t(r.var.value);
    const loader::SpecialStruct* f = rec ? rec->find(loader::kFieldGraphRoot, uint32_t(off)) : nullptr;
    if (!f || std::strcmp(f->name, root_name) != 0)
        return env.fail(fmt::format("{} not found at offset={}", root_name, uint32_t(off)));
    if (!allocation_locked(env, r))
        return env.fail(fmt::format("bpf_spin_lock at off={} must be held for {}",
                                    rec->offset_of(loader::kFieldSpinLock), root_name));
    *root = f;
    return true;
}

// KF_ARG_PTR_TO_LIST_NODE / _RB_NODE (argument 1, R2): an owning reference to an object (bpf_rbtree_remove: a
// non-owning one), the node at a constant offset, of the root's `contains:` struct at its node offset.
bool check_node(Env& env, G g, const loader::SpecialStruct& root) {
    const Reg r = env.path.cur.cur().regs[2];
    if (!check_reg_init(env, 2) || !not_null_arg(env, r, 1) || !graph_arg_reg_off(env, r, 2))
        return false;
    if (takes_placed_node(g)) { // 6.18: an owning reference (of a refcounted object, in practice) is taken too
        if (!non_owning(r) && !r.ref_obj_id)
            return env.fail(fmt::format("{} can only take non-owning or refcounted bpf_rb_node pointer",
                                        graph_kfunc_name(g)));
        if (in_rbtree_lock_required_cb(env))
            return env.fail(fmt::format("{} not allowed in rbtree cb", graph_kfunc_name(g)));
    } else {
        if (!exact_alloc(r))
            return env.fail("arg#1 expected pointer to allocated object");
        if (!r.ref_obj_id)
            return env.fail("allocated object must be referenced");
    }
    const char* node_name = is_list(g) ? "bpf_list_node" : "bpf_rb_node";
    const char* root_name = is_list(g) ? "bpf_list_head" : "bpf_rb_root";
    if (!r.var.is_const())
        return env.fail(fmt::format("R2 doesn't have constant offset. {} has to be at the constant offset", node_name));
    const int64_t off = int64_t(r.off) + int64_t(r.var.value);
    const loader::ValueFields* rec = reg_record(env, r);
    const loader::SpecialStruct* f = rec ? rec->find(loader::kFieldGraphNode, uint32_t(off)) : nullptr;
    if (!f || std::strcmp(f->name, node_name) != 0)
        return env.fail(fmt::format("{} not found at offset={}", node_name, uint32_t(off)));
    BtfRef b = env.facts.inst.spec().btf.get();
    const std::string want = struct_name(b, root.value_type_id);
    if (r.aux != root.value_type_id)
        return env.fail(fmt::format("operation on {} expects arg#1 {} at offset={} in struct {}, but arg is at "
                                    "offset={} in struct {}",
                                    root_name, node_name, root.node_off, want, uint32_t(off),
                                    struct_name(r.btf, r.aux)));
    if (uint32_t(off) != root.node_off)
        return env.fail(fmt::format("arg#1 offset={}, but expected {} at offset={} in struct {}", uint32_t(off),
                                    node_name, root.node_off, want));
    return true;
}

// ref_set_non_owning: NON_OWN_REF, and MEM_RCU for an object with a bpf_refcount.
void set_non_owning(const Env& env, Reg& r) {
    r.btf_flags |= kBtfNonOwn;
    if (local_struct_meta(env, r.aux).fields.offset_of(loader::kFieldRefcount) >= 0)
        r.btf_flags |= kBtfRcu;
}

// ref_convert_owning_non_owning, then release_reference: every copy of the pushed object stays usable as a
// non-owning reference, the reference itself is gone.
void convert_owning(Env& env, uint32_t ref) {
    auto convert = [&](Reg& r) {
        if (r.ref_obj_id == ref) {
            r.ref_obj_id = 0;
            set_non_owning(env, r);
        }
    };
    for_each_reg(env.path.cur, convert);
    release_reference_nomark(env.path.cur, ref);
}

// mark_reg_graph_node: R0 points at the node of the root's struct, an object of the program's BTF.
Reg graph_node_reg(const Env& env, const loader::SpecialStruct& root) {
    Reg r = reg_ptr(RegType::btf_id, root.value_type_id, int32_t(root.node_off));
    r.btf = env.facts.inst.spec().btf.get();
    r.btf_flags = kBtfAlloc;
    return r;
}

// KF_ARG_PTR_TO_CALLBACK (argument 2, R3) of bpf_rbtree_add_impl.
bool check_callback_arg(Env& env) {
    const Reg r = env.path.cur.cur().regs[3];
    if (!check_reg_init(env, 3) || !graph_arg_reg_off(env, r, 3))
        return false;
    if (r.type != RegType::func)
        return env.fail("arg2 expected pointer to func");
    return true;
}

// push_callback_call with set_rbtree_add_callback_state: the `less` callback's body as a pending path, entered with
// the lock held and both arguments non-owning pointers to nodes of the root's struct; the caller goes on.
bool push_less_callback(Env& env, const loader::SpecialStruct& root) {
    if (env.path.cur.frames.size() >= size_t(isa::kMaxCallDepth))
        return env.fail(fmt::format("the call stack of {} frames is too deep", env.path.cur.frames.size() + 1));
    State st = env.path.cur;
    st.cur().callback_depth++;
    env.path.cur.cur().callback_depth = 0;
    Frame callee;
    for (int regno = 1; regno <= 2; regno++) {
        callee.regs[size_t(regno)] = graph_node_reg(env, root);
        set_non_owning(env, callee.regs[size_t(regno)]);
    }
    const int32_t entry = int32_t(st.cur().regs[3].aux);
    push_callback_frame(env, std::move(st), std::move(callee), entry);
    return true;
}

// bpf_list_push_front_impl / _back_impl (head, node, meta__ign, off) and bpf_rbtree_add_impl (root, node, less,
// meta__ign, off).
bool do_insert(Env& env, G g) {
    const loader::SpecialStruct* root = nullptr;
    if (!check_root(env, g, &root) || !check_node(env, g, *root))
        return false;
    if (g == G::rb_add && !check_callback_arg(env))
        return false;
    const int off_reg = g == G::rb_add ? 5 : 4;
    if (env.path.cur.cur().regs[size_t(off_reg)].type != RegType::scalar)
        return env.fail(fmt::format("R{} is not a scalar", off_reg));
    if (!save_kfunc_struct_meta(env, env.path.cur.cur().regs[2].aux))
        return false;
    if (g == G::rb_add && !push_less_callback(env, *root))
        return false;
    convert_owning(env, env.path.cur.cur().regs[2].ref_obj_id);
    clear_caller_saved(env);
    env.path.cur.cur().regs[0] = reg_unknown();
    return true;
}

// bpf_list_pop_front / _back (head), bpf_rbtree_remove (root, node), bpf_rbtree_first (root): R0 the node of the
// root's struct, maybe NULL; an acquired reference, or for rbtree_first a non-owning one.
bool do_take(Env& env, G g) {
    const loader::SpecialStruct* root = nullptr;
    if (!check_root(env, g, &root))
        return false;
    if (takes_placed_node(g) && !check_node(env, g, *root))
        return false;
    const loader::SpecialStruct field = *root;
    clear_caller_saved(env);
    Reg r0 = graph_node_reg(env, field);
    r0.maybe_null = true;
    r0.id = env.path.new_id();
    if (peeks(g))
        set_non_owning(env, r0);
    else
        r0.id = r0.ref_obj_id = acquire_reference(env, env.path.pc);
    env.path.cur.cur().regs[0] = r0;
    return true;
}

// bpf_refcount_acquire_impl (p__refcounted_kptr, meta__ign): KF_RCU, so not NULL; an object, owning or not, whose
// struct has a bpf_refcount. R0 a new owning reference to it, maybe NULL unless the argument was owning.
bool do_refcount_acquire(Env& env) {
    const Reg r = env.path.cur.cur().regs[1];
    if (!check_reg_init(env, 1))
        return false;
    if (is_null_const(r) || r.maybe_null)
        return env.fail("Possibly NULL pointer passed to trusted arg0");
    if (!graph_arg_reg_off(env, r, 1))
        return false;
    if (!is_alloc_obj(r))
        return env.fail("arg#0 is neither owning or non-owning ref");
    const bool owning = !(r.btf_flags & kBtfNonOwn) && r.ref_obj_id;
    const loader::StructMeta& meta = local_struct_meta(env, r.aux);
    if (!meta.has)
        return env.fail("verifier internal error: Couldn't find btf_record");
    if (meta.fields.offset_of(loader::kFieldRefcount) < 0)
        return env.fail("arg#0 doesn't point to a type with bpf_refcount field");
    if (!save_kfunc_struct_meta(env, r.aux))
        return false;
    clear_caller_saved(env);
    Reg r0 = reg_ptr(RegType::btf_id, r.aux);
    r0.btf = r.btf;
    r0.btf_flags = kBtfAlloc;
    r0.maybe_null = !owning;
    if (!owning)
        r0.id = env.path.new_id();
    const uint32_t ref = acquire_reference(env, env.path.pc);
    if (!owning)
        r0.id = ref;
    r0.ref_obj_id = ref;
    if (!r0.id && meta.fields.offset_of(loader::kFieldSpinLock) >= 0) // reg_may_point_to_spin_lock
        r0.id = env.path.new_id();
    env.path.cur.cur().regs[0] = r0;
    return true;
}

} // namespace

bool save_kfunc_struct_meta(Env& env, uint32_t type_id) {
    const uint32_t meta = local_struct_meta(env, type_id).has ? type_id : 0;
    const auto [it, fresh] = env.aux.kfunc_struct_meta.emplace(env.path.pc, meta);
    if (fresh || it->second == meta)
        return true;
    env.note("same call cannot be used with different types");
    env.note("use one call for each type: inline the static function that holds the call,");
    return env.fail("or mark the callee with __attribute__((nomerge))");
}

bool is_graph_kfunc(std::string_view name) { return find_graph(name) != nullptr; }

namespace {
const char* graph_kfunc_name(G g) {
    for (const GraphKfunc& k : kGraphKfuncs)
        if (k.g == g)
            return k.name.data();
    return "";
}
} // namespace

bool graph_kfunc_allowed_locked(std::string_view name) {
    const GraphKfunc* k = find_graph(name);
    return k != nullptr;
}

bool is_graph_callback_call(const Env& env, const isa::Insn& insn) {
    const GraphKfunc* k = find_graph(kfunc_name_at(env, insn));
    return k && k->g == G::rb_add;
}

bool in_rbtree_lock_required_cb(const Env& env) {
    const auto& frames = env.path.cur.frames;
    for (size_t i = frames.size(); i-- > 1;) {
        if (!frames[i].in_callback)
            continue;
        const GraphKfunc* k = find_graph(kfunc_name_at(env, env.facts.insns[size_t(frames[i].callsite)]));
        if (k && (k->g == G::rb_add || k->g == G::rb_remove || k->g == G::rb_first || k->g == G::rb_root ||
                  k->g == G::rb_left || k->g == G::rb_right))
            return true;
    }
    return false;
}

void invalidate_non_owning_refs(Env& env) {
    auto invalidate = [](Reg& r) {
        if (r.type == RegType::btf_id && (r.btf_flags & kBtfAlloc) && (r.btf_flags & kBtfNonOwn))
            r = reg_unknown();
    };
    for_each_reg(env.path.cur, invalidate);
}

const loader::ValueFields* reg_record(const Env& env, const Reg& r) {
    if (r.type == RegType::map_value)
        return &map_kptrs(env, r.aux).value;
    if (is_alloc_obj(r))
        return &local_struct_meta(env, r.aux).fields;
    return nullptr;
}

bool do_graph_kfunc(Env& env, std::string_view name, const isa::Insn&) {
    const GraphKfunc* k = find_graph(name);
    if (!k)
        return env.fail(fmt::format("kernel btf_id for {} is not a function", name));
    if (!kfunc_set_allows(KfuncSet::generic, env.facts.prog.type))
        return env.fail(fmt::format("calling kernel function {} is not allowed", name));
    switch (k->g) {
    case G::push_front:
    case G::push_back:
    case G::rb_add:
        return do_insert(env, k->g);
    case G::pop_front:
    case G::pop_back:
    case G::rb_remove:
    case G::rb_first:
    case G::list_front:
    case G::list_back:
    case G::rb_root:
    case G::rb_left:
    case G::rb_right:
        return do_take(env, k->g);
    case G::refcount_acquire:
        return do_refcount_acquire(env);
    }
    return env.fail(fmt::format("strbpf does not model the kfunc {}", name));
}

} // namespace strbpf::verifier
