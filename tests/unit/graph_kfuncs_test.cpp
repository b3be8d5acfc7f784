// SPDX-License-Identifier: BSD-2-Clause
// The graph kfuncs and refcounted objects at run time (tests), called directly on objects of the structs of
// tests/progs/graph_run_list.bpf.c and graph_run_rbtree.bpf.c: list order at both ends, -EINVAL and the dropped
// reference for a node on a list already, tree order by a `less` given as a host callback, equal keys after their
// equals, the tree's shape against the live kernel's (measured by graph_run_rbtree.bpf.c's walk programs), a node
// of another root, refcounts, nodes in no object refused, and lists and trees drained when their map element,
// map, global data or holding object goes (live_objects() counts what is left; ASan sees the frees).
#include <gtest/gtest.h>

#include <algorithm>
#include <bpf/btf.h>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "exec/interp/interpreter.hpp"
#include "exec/jit/jit.hpp"
#include "isa/insn.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"
#include "runtime/kfuncs/graph_kfuncs.hpp"
#include "runtime/kfuncs/kfunc_table.hpp"
#include "runtime/kfuncs/obj_kfuncs.hpp"
#include "runtime/maps/map.hpp"

namespace strbpf::runtime {
namespace {

using namespace kfuncs;

constexpr uint64_t kEinval = uint32_t(-EINVAL); // a C int in R0

std::unique_ptr<ObjectInstance> load(const char* stem) {
    auto spec = loader::load_object_file(std::string(STRBPF_PROGS_DIR) + "/" + stem + ".bpf.o");
    EXPECT_TRUE(spec) << spec.error().message;
    if (!spec)
        return nullptr;
    auto inst = ObjectInstance::create(std::make_shared<const loader::ObjectSpec>(std::move(*spec)));
    EXPECT_TRUE(inst) << inst.error().message;
    return inst ? std::move(*inst) : nullptr;
}

// The layouts of the programs' structs (x86-64 and BPF agree): item {key; node}, shared {key; a; b; ref},
// node_data {key; data; node}, holder {lock; head; n}, map_value {lock; head}.
constexpr uint64_t kItemNode = 8, kSharedA = 8, kSharedB = 32, kSharedRef = 56, kDataNode = 16, kHolderHead = 8;

// The global-data map of SECTION in INST, or nullptr.
Map* global_map(ObjectInstance* inst, const char* section) {
    for (size_t i = 0; i < inst->map_count(); i++)
        if (inst->map(i)->spec().section == section)
            return inst->map(i);
    return nullptr;
}

// Why the graph root at offset 8 of global-data map M cannot be found ("" when it can): libbpf's btf_fixup_datasec
// gives each variable of a DATASEC its offset from the ELF symbol; without that step clang's 0 offsets put the lock
// and the root on each other, and the value has no graph root.
std::string global_root_missing(const Map* m) {
    for (const ValueField& f : m->value_fields().fields())
        if (f.off == 8 && f.size == 16)
            return "";
    return "the loader leaves the DATASEC variable offsets of " + m->spec().section +
           " as clang emits them (all 0; libbpf's btf_fixup_datasec is not done): its graph root is not found";
}

class GraphKfuncs : public ::testing::Test {
  protected:
    void SetUp() override {
        base_ = live_objects();
        list_ = load("graph_run_list");
        tree_ = load("graph_run_rbtree");
        ASSERT_TRUE(list_ && tree_);
        ctx_.verified = true;
        ctx_.invoke_callback = &host_less;
    }
    void TearDown() override {
        list_.reset();
        tree_.reset();
        EXPECT_EQ(live_objects(), base_) << "objects leaked or freed twice";
    }
    // A new object of struct NAME of INST's BTF, its first long set to KEY (and its second to DATA for node_data).
    uint64_t make(ObjectInstance* inst, const char* name, long key, long data = 0) {
        ctx_.instance = inst;
        const int id = btf__find_by_name_kind(inst->spec().btf.get(), name, BTF_KIND_STRUCT);
        EXPECT_GT(id, 0) << name;
        const uint64_t obj = bpf_obj_new_impl(uint64_t(id), 0, 0, 0, 0, &ctx_);
        EXPECT_NE(obj, 0u);
        if (obj) {
            reinterpret_cast<long*>(obj)[0] = key;
            if (std::strcmp(name, "node_data") == 0)
                reinterpret_cast<long*>(obj)[1] = data;
        }
        return obj;
    }
    uint64_t item(long key) { return make(list_.get(), "item", key); }
    uint64_t data(long key, long d = 0) { return make(tree_.get(), "node_data", key, d); }
    static long key_at(uint64_t node, uint64_t off) { return node ? reinterpret_cast<long*>(node - off)[0] : -1; }

    // bpf_rbtree_add's `less` as the host's: a's key < b's key (node_data).
    static uint64_t host_less(RunContext*, uint64_t, uint64_t a, uint64_t b, uint64_t, uint64_t, uint64_t) {
        return key_at(a, kDataNode) < key_at(b, kDataNode);
    }
    uint64_t add(uint64_t* root, uint64_t obj) {
        return bpf_rbtree_add_impl(uint64_t(root), obj + kDataNode, 1, 0, 0, &ctx_);
    }
    // The first node taken out and dropped: its key * 10 + data, -1 when empty.
    long take_first(uint64_t* root) {
        const uint64_t f = bpf_rbtree_first(uint64_t(root), 0, 0, 0, 0, &ctx_);
        if (!f)
            return -1;
        const uint64_t n = bpf_rbtree_remove(uint64_t(root), f, 0, 0, 0, &ctx_);
        EXPECT_EQ(n, f);
        const long r = key_at(n, kDataNode) * 10 + reinterpret_cast<long*>(n - kDataNode)[1];
        obj_drop(n - kDataNode);
        return r;
    }
    long pop(uint64_t* head, bool back) {
        const uint64_t n = back ? bpf_list_pop_back(uint64_t(head), 0, 0, 0, 0, &ctx_)
                                : bpf_list_pop_front(uint64_t(head), 0, 0, 0, 0, &ctx_);
        const long k = key_at(n, kItemNode);
        if (n)
            obj_drop(n - kItemNode);
        return k;
    }
    // The keys of the tree in order through bpf_rbtree_left/_right (in-order walk), and its height.
    void walk(uint64_t* root, uint64_t node, std::vector<long>* keys, int depth, int* height) {
        if (!node)
            return;
        *height = std::max(*height, depth);
        walk(root, bpf_rbtree_left(uint64_t(root), node, 0, 0, 0, &ctx_), keys, depth + 1, height);
        keys->push_back(key_at(node, kDataNode));
        walk(root, bpf_rbtree_right(uint64_t(root), node, 0, 0, 0, &ctx_), keys, depth + 1, height);
    }
    // graph_run_rbtree.bpf.c's shape(): root, left, right, and their children, as digits (0: none).
    long shape(uint64_t* root) {
        auto child = [&](uint64_t n, bool left) {
            return n ? (left ? bpf_rbtree_left : bpf_rbtree_right)(uint64_t(root), n, 0, 0, 0, &ctx_) : 0;
        };
        auto key = [](uint64_t n) { return n ? key_at(n, kDataNode) : 0; };
        const uint64_t r = bpf_rbtree_root(uint64_t(root), 0, 0, 0, 0, &ctx_);
        const uint64_t l = child(r, true), rt = child(r, false);
        long s = key(r);
        for (uint64_t n : {l, rt, child(l, true), child(l, false), child(rt, true), child(rt, false)})
            s = s * 10 + key(n);
        return s;
    }

    size_t base_ = 0;
    std::unique_ptr<ObjectInstance> list_, tree_;
    RunContext ctx_;
};

TEST_F(GraphKfuncs, ListOrderAtBothEnds) {
    uint64_t head[2] = {0, 0}; // zeroed, as a fresh map value: an empty list
    EXPECT_EQ(bpf_list_pop_front(uint64_t(head), 0, 0, 0, 0, &ctx_), 0u);
    EXPECT_EQ(bpf_list_front(uint64_t(head), 0, 0, 0, 0, &ctx_), 0u);
    EXPECT_EQ(bpf_list_back(uint64_t(head), 0, 0, 0, 0, &ctx_), 0u);
    for (long k : {1, 2, 3})
        EXPECT_EQ(bpf_list_push_back_impl(uint64_t(head), item(k) + kItemNode, 0, 0, 0, &ctx_), 0u);
    EXPECT_EQ(bpf_list_push_front_impl(uint64_t(head), item(4) + kItemNode, 0, 0, 0, &ctx_), 0u);
    EXPECT_EQ(key_at(bpf_list_front(uint64_t(head), 0, 0, 0, 0, &ctx_), kItemNode), 4);
    EXPECT_EQ(key_at(bpf_list_back(uint64_t(head), 0, 0, 0, 0, &ctx_), kItemNode), 3);
    EXPECT_EQ(pop(head, false), 4);
    EXPECT_EQ(pop(head, true), 3);
    EXPECT_EQ(pop(head, false), 1);
    EXPECT_EQ(pop(head, false), 2);
    EXPECT_EQ(pop(head, false), -1);
    EXPECT_EQ(pop(head, true), -1);
    EXPECT_FALSE(ctx_.aborted) << ctx_.abort_message;
}

TEST_F(GraphKfuncs, PushOfAnOwnedNodeIsEinvalAndDropsTheReference) {
    uint64_t a[2] = {0, 0}, b[2] = {0, 0};
    const uint64_t s = make(list_.get(), "shared", 7);
    auto* rc = reinterpret_cast<uint32_t*>(s + kSharedRef);
    EXPECT_EQ(*rc, 1u); // bpf_obj_new: refcount_set(1)
    EXPECT_EQ(bpf_refcount_acquire_impl(s, 0, 0, 0, 0, &ctx_), s);
    EXPECT_EQ(bpf_refcount_acquire_impl(s, 0, 0, 0, 0, &ctx_), s);
    EXPECT_EQ(*rc, 3u);
    EXPECT_EQ(bpf_list_push_back_impl(uint64_t(a), s + kSharedA, 0, 0, 0, &ctx_), 0u);
    EXPECT_EQ(bpf_list_push_back_impl(uint64_t(b), s + kSharedB, 0, 0, 0, &ctx_), 0u);
    EXPECT_EQ(bpf_list_push_front_impl(uint64_t(b), s + kSharedA, 0, 0, 0, &ctx_), kEinval); // on `a` already
    EXPECT_EQ(*rc, 2u);
    const uint64_t n = bpf_list_pop_front(uint64_t(a), 0, 0, 0, 0, &ctx_);
    EXPECT_EQ(n, s + kSharedA);
    obj_drop(n - kSharedA);
    EXPECT_EQ(*rc, 1u);
    const size_t live = live_objects();
    const uint64_t m = bpf_list_pop_front(uint64_t(b), 0, 0, 0, 0, &ctx_); // the last reference
    EXPECT_EQ(m, s + kSharedB);
    obj_drop(m - kSharedB);
    EXPECT_EQ(live_objects(), live - 1);
    EXPECT_FALSE(ctx_.aborted) << ctx_.abort_message;
}

TEST_F(GraphKfuncs, RefcountAcquireAndDrop) {
    const uint64_t s = make(list_.get(), "shared", 1);
    auto* rc = reinterpret_cast<uint32_t*>(s + kSharedRef);
    const size_t live = live_objects();
    EXPECT_EQ(bpf_refcount_acquire_impl(s, 0, 0, 0, 0, &ctx_), s);
    EXPECT_EQ(*rc, 2u);
    bpf_obj_drop_impl(s, 0, 0, 0, 0, &ctx_);
    EXPECT_EQ(*rc, 1u);
    EXPECT_EQ(live_objects(), live);
    bpf_obj_drop_impl(s, 0, 0, 0, 0, &ctx_);
    EXPECT_EQ(live_objects(), live - 1);
    EXPECT_FALSE(ctx_.aborted);
    const uint64_t i = item(3); // no bpf_refcount: refused (the verifier's rule, checked again at run)
    EXPECT_EQ(bpf_refcount_acquire_impl(i, 0, 0, 0, 0, &ctx_), 0u);
    EXPECT_TRUE(ctx_.aborted);
    EXPECT_NE(ctx_.abort_message.find("no live object with a bpf_refcount"), std::string::npos) << ctx_.abort_message;
    obj_drop(i);
}

TEST_F(GraphKfuncs, NodeInNoLiveObjectEndsTheRun) {
    uint64_t head[2] = {0, 0};
    uint64_t fake[3] = {0, 0, 0};
    EXPECT_EQ(bpf_list_push_back_impl(uint64_t(head), uint64_t(fake), 0, 0, 0, &ctx_), 0u);
    EXPECT_TRUE(ctx_.aborted);
    EXPECT_NE(ctx_.abort_message.find("bpf_list_push_back_impl: the node at"), std::string::npos);
    EXPECT_NE(ctx_.abort_message.find("lies in no live bpf_obj_new object"), std::string::npos);
    EXPECT_EQ(head[0], 0u) << "the head untouched";
    EXPECT_EQ(head[1], 0u);
    RunContext c2;
    c2.verified = true;
    uint64_t root[2] = {0, 0};
    const uint64_t obj = data(1); // a node straddling the object's end
    EXPECT_EQ(bpf_rbtree_remove(uint64_t(root), obj + 24, 0, 0, 0, &c2), 0u);
    EXPECT_TRUE(c2.aborted);
    obj_drop(obj);
}

TEST_F(GraphKfuncs, TreeOrderByTheCallbackEqualKeysAfterEquals) {
    uint64_t root[2] = {0, 0};
    EXPECT_EQ(bpf_rbtree_first(uint64_t(root), 0, 0, 0, 0, &ctx_), 0u);
    EXPECT_EQ(bpf_rbtree_root(uint64_t(root), 0, 0, 0, 0, &ctx_), 0u);
    for (long k : {5, 1, 4, 2, 3})
        EXPECT_EQ(add(root, data(k)), 0u);
    for (long d : {1, 2, 3})
        EXPECT_EQ(add(root, data(3, d)), 0u);
    std::vector<long> out;
    for (long r; (r = take_first(root)) >= 0;)
        out.push_back(r);
    EXPECT_EQ(out, (std::vector<long>{10, 20, 30, 31, 32, 33, 40, 50}));
    EXPECT_FALSE(ctx_.aborted) << ctx_.abort_message;
}

TEST_F(GraphKfuncs, AddOfAnOwnedNodeIsEinval) {
    // node_data has no bpf_refcount, so the program cannot reach this; the kfunc's answer is the kernel's anyway.
    uint64_t root[2] = {0, 0}, other[2] = {0, 0};
    const uint64_t a = data(1), b = data(2);
    EXPECT_EQ(add(root, a), 0u);
    EXPECT_EQ(add(root, b), 0u);
    EXPECT_EQ(bpf_rbtree_remove(uint64_t(other), a + kDataNode, 0, 0, 0, &ctx_), 0u) << "another root's node";
    EXPECT_EQ(bpf_rbtree_left(uint64_t(other), a + kDataNode, 0, 0, 0, &ctx_), 0u);
    EXPECT_EQ(take_first(root), 10);
    EXPECT_EQ(take_first(root), 20);
    EXPECT_EQ(take_first(root), -1);
}

TEST_F(GraphKfuncs, ShapeIsTheKernels) {
    uint64_t root[2] = {0, 0};
    for (long k = 1; k <= 7; k++)
        add(root, data(k));
    EXPECT_EQ(shape(root), 2140036); // graph_run_rbtree.bpf.c walk_after_ascending_adds on Linux 6.18
    while (take_first(root) >= 0) {
    }
    for (long k = 1; k <= 9; k++)
        add(root, data(k));
    take_first(root);
    take_first(root);
    const uint64_t six = [&] {
        uint64_t n = bpf_rbtree_root(uint64_t(root), 0, 0, 0, 0, &ctx_);
        while (n && key_at(n, kDataNode) != 6)
            n = (key_at(n, kDataNode) < 6 ? bpf_rbtree_right : bpf_rbtree_left)(uint64_t(root), n, 0, 0, 0, &ctx_);
        return n;
    }();
    ASSERT_NE(six, 0u);
    EXPECT_EQ(bpf_rbtree_remove(uint64_t(root), six, 0, 0, 0, &ctx_), six);
    obj_drop(six - kDataNode);
    EXPECT_EQ(shape(root), 4370058); // walk_after_removals on Linux 6.18
    while (take_first(root) >= 0) {
    }
}

// Random adds and removes against a sorted model: the in-order walk is the model, the first node its smallest,
// and the height within a red-black tree's 2 log2(n + 1).
TEST_F(GraphKfuncs, RandomAddsAndRemovesKeepARedBlackTree) {
    uint64_t root[2] = {0, 0};
    std::multimap<long, uint64_t> model;
    std::mt19937 rng(20261207);
    for (int step = 0; step < 3000; step++) {
        if (model.size() < 200 && (model.empty() || rng() % 3 != 0)) {
            const long k = long(rng() % 64);
            const uint64_t obj = data(k);
            ASSERT_EQ(add(root, obj), 0u);
            model.emplace(k, obj);
        } else {
            auto it = model.begin();
            std::advance(it, rng() % model.size());
            const uint64_t node = it->second + kDataNode;
            ASSERT_EQ(bpf_rbtree_remove(uint64_t(root), node, 0, 0, 0, &ctx_), node);
            obj_drop(it->second);
            model.erase(it);
        }
        if (step % 50 == 0 || model.size() < 4) {
            std::vector<long> keys, want;
            int height = 0;
            walk(root, bpf_rbtree_root(uint64_t(root), 0, 0, 0, 0, &ctx_), &keys, 1, &height);
            for (auto& [k, o] : model)
                want.push_back(k);
            ASSERT_EQ(keys, want) << "step " << step;
            EXPECT_LE(double(height), 2 * std::log2(double(model.size()) + 1) + 1e-9) << "step " << step;
            const uint64_t f = bpf_rbtree_first(uint64_t(root), 0, 0, 0, 0, &ctx_);
            EXPECT_EQ(key_at(f, kDataNode), model.empty() ? -1 : model.begin()->first);
        }
    }
    EXPECT_FALSE(ctx_.aborted) << ctx_.abort_message;
    kfuncs::rb_root_free(root, nullptr); // the rest dropped as a map's freeing drops them
}

TEST_F(GraphKfuncs, ListsDrainedWithTheirMapElementAndMap) {
    Map* m = list_->find_map("lists");
    ASSERT_NE(m, nullptr);
    uint8_t zero[24] = {};
    auto fill = [&](int key, int n) {
        ASSERT_EQ(m->update(&key, zero, 0), 0);
        auto* v = static_cast<uint8_t*>(m->lookup(&key));
        ASSERT_NE(v, nullptr);
        for (int i = 0; i < n; i++)
            ASSERT_EQ(bpf_list_push_back_impl(uint64_t(v + 8), item(i) + kItemNode, 0, 0, 0, &ctx_), 0u);
    };
    const size_t before = live_objects();
    fill(0, 3);
    fill(1, 2);
    fill(2, 4);
    EXPECT_EQ(live_objects(), before + 9);
    int key = 0;
    EXPECT_EQ(m->remove(&key), 0); // the deleted element's list drained
    EXPECT_EQ(live_objects(), before + 6);
    key = 1;
    EXPECT_EQ(m->update(&key, zero, 0), 0); // bpf_obj_free_fields of the old value
    EXPECT_EQ(live_objects(), before + 4);
    list_.reset(); // element 2: dropped with the map
    EXPECT_EQ(live_objects(), before);
}

TEST_F(GraphKfuncs, ListInGlobalsDrainedAtTheEnd) {
    Map* g = global_map(list_.get(), ".data.B");
    ASSERT_NE(g, nullptr);
    if (std::string why = global_root_missing(g); !why.empty())
        GTEST_SKIP() << why;
    const size_t before = live_objects();
    ASSERT_EQ(bpf_list_push_front_impl(uint64_t(g->arena() + 8), item(9) + kItemNode, 0, 0, 0, &ctx_), 0u);
    EXPECT_EQ(live_objects(), before + 1);
    list_.reset();
    EXPECT_EQ(live_objects(), before);
}

TEST_F(GraphKfuncs, TreeInGlobalsDrainedAtTheEnd) {
    Map* g = global_map(tree_.get(), ".data.B");
    ASSERT_NE(g, nullptr);
    if (std::string why = global_root_missing(g); !why.empty())
        GTEST_SKIP() << why;
    auto* root = reinterpret_cast<uint64_t*>(g->arena() + 8);
    const size_t before = live_objects();
    for (long k : {3, 1, 2})
        ASSERT_EQ(add(root, data(k)), 0u);
    EXPECT_EQ(live_objects(), before + 3);
    tree_.reset();
    EXPECT_EQ(live_objects(), before);
}

TEST_F(GraphKfuncs, DroppingAnObjectDrainsItsOwnList) {
    const size_t before = live_objects();
    const uint64_t h = make(list_.get(), "holder", 0);
    for (long k : {1, 2})
        ASSERT_EQ(bpf_list_push_back_impl(h + kHolderHead, item(k) + kItemNode, 0, 0, 0, &ctx_), 0u);
    EXPECT_EQ(live_objects(), before + 3);
    bpf_obj_drop_impl(h, 0, 0, 0, 0, &ctx_);
    EXPECT_EQ(live_objects(), before);
}

// bpf_list_head_free of a list holding a refcounted object another reference keeps: the object survives with one
// reference less, and its node keeps an owner (as the kernel's), so pushing it again is -EINVAL and drops it.
TEST_F(GraphKfuncs, RefcountedObjectSurvivesTheDrain) {
    Map* g = global_map(list_.get(), ".data.C");
    ASSERT_NE(g, nullptr);
    const size_t before = live_objects();
    const uint64_t s = make(list_.get(), "shared", 4);
    ASSERT_EQ(bpf_refcount_acquire_impl(s, 0, 0, 0, 0, &ctx_), s);
    ASSERT_EQ(bpf_list_push_back_impl(uint64_t(g->arena() + 8), s + kSharedA, 0, 0, 0, &ctx_), 0u);
    list_head_free(g->arena() + 8, reinterpret_cast<uint32_t*>(g->arena()));
    EXPECT_EQ(live_objects(), before + 1);
    EXPECT_EQ(*reinterpret_cast<uint32_t*>(s + kSharedRef), 1u);
    EXPECT_EQ(*reinterpret_cast<uint32_t*>(g->arena()), 0u) << "the lock released";
    EXPECT_EQ(bpf_list_pop_front(uint64_t(g->arena() + 8), 0, 0, 0, 0, &ctx_), 0u) << "the list is empty";
    uint64_t other[2] = {0, 0};
    EXPECT_EQ(bpf_list_push_back_impl(uint64_t(other), s + kSharedA, 0, 0, 0, &ctx_), kEinval);
    EXPECT_EQ(live_objects(), before);
}

// A hash element replaced by an update frees the old element's fields (check_and_free_fields): a kptr's object is
// dropped as a list's are (tests/progs/kptr_local.bpf.c's map `h`, value {long n; struct pair __kptr *p}).
TEST_F(GraphKfuncs, HashUpdateDropsTheReplacedElementsKptr) {
    std::unique_ptr<ObjectInstance> kp = [] {
        auto spec = loader::load_object_file(std::string(STRBPF_PROGS_DIR) + "/kptr_local.bpf.o");
        if (!spec)
            return std::unique_ptr<ObjectInstance>();
        auto inst = ObjectInstance::create(std::make_shared<const loader::ObjectSpec>(std::move(*spec)));
        return inst ? std::move(*inst) : nullptr;
    }();
    if (!kp)
        GTEST_SKIP() << "tests/progs/kptr_local.bpf.o is not built (it needs clang 18 or later)";
    Map* h = kp->find_map("h");
    ASSERT_NE(h, nullptr);
    const size_t before = live_objects();
    uint64_t value[2] = {1, 0};
    int key = 3;
    ASSERT_EQ(h->update(&key, value, 0), 0);
    auto* v = static_cast<uint64_t*>(h->lookup(&key));
    ASSERT_NE(v, nullptr);
    v[1] = make(kp.get(), "pair", 7); // as bpf_kptr_xchg leaves it
    EXPECT_EQ(live_objects(), before + 1);
    ASSERT_EQ(h->update(&key, value, 0), 0); // BPF_ANY over an existing element
    EXPECT_EQ(live_objects(), before);
}

// bpf_rbtree_add_impl called from BPF code whose `less` is a BPF function (ld_imm64 BPF_PSEUDO_FUNC), on the
// interpreter and the JIT: the kfunc runs the callback through each engine's invoke_callback. The program (as the
// verifier would hand it over; run unchecked): add(r1 = root, r2 = node, less), where less compares the longs 16
// bytes before each node (node_data's key).
TEST_F(GraphKfuncs, LessRunsAsABpfCallbackOnInterpAndJit) {
    using isa::Insn;
    const int32_t add_idx = kfunc_index("bpf_rbtree_add_impl");
    ASSERT_GE(add_idx, 0);
    const std::vector<Insn> prog = {
        {0xbf, 6, 1, 0, 0},       // r6 = r1
        {0xbf, 7, 2, 0, 0},       // r7 = r2
        {0x18, 3, 4, 0, 7},       // r3 = less (BPF_PSEUDO_FUNC: pc 2 + 7 + 1)
        {0x00, 0, 0, 0, 0},       //
        {0xbf, 1, 6, 0, 0},       // r1 = root
        {0xbf, 2, 7, 0, 0},       // r2 = node
        {0xb7, 4, 0, 0, 0},       // r4 = 0 (meta__ign)
        {0xb7, 5, 0, 0, 0},       // r5 = 0 (off)
        {0x85, 0, 2, 0, add_idx}, // call bpf_rbtree_add_impl (BPF_PSEUDO_KFUNC_CALL)
        {0x95, 0, 0, 0, 0},       // exit
        {0x79, 3, 1, -16, 0},     // less: r3 = a's key
        {0x79, 4, 2, -16, 0},     //       r4 = b's key
        {0xb7, 0, 0, 0, 0},       //       r0 = 0
        {0x3d, 3, 4, 1, 0},       //       if r3 >= r4 goto +1
        {0xb7, 0, 0, 0, 1},       //       r0 = 1
        {0x95, 0, 0, 0, 0},       //       exit
    };
    auto jit = exec::jit::compile(prog);
    ASSERT_TRUE(jit) << jit.error().message;
    ASSERT_FALSE((*jit)->lean()) << "a kfunc that calls back needs the trampoline";
    const long keys[] = {5, 1, 4, 2, 3, 4, 0};
    long host_shape = 0; // the same adds through the host `less`
    {
        uint64_t root[2] = {0, 0};
        for (long k : keys)
            add(root, data(k));
        host_shape = shape(root);
        while (take_first(root) >= 0) {
        }
    }
    for (int engine = 0; engine < 2; engine++) {
        uint64_t root[2] = {0, 0};
        ctx_.invoke_callback = nullptr; // each engine sets its own for the run
        for (long k : keys) {
            const uint64_t node = data(k, engine) + kDataNode;
            StackArea stack;
            if (engine == 0) {
                const exec::interp::InterpResult r =
                    exec::interp::run_validated(prog, uint64_t(root), node, ctx_, stack, 0, false);
                ASSERT_TRUE(r.ok) << r.error;
                EXPECT_EQ(r.r0, 0u);
            } else {
                const exec::jit::JitResult r = (*jit)->run(uint64_t(root), node, ctx_, stack);
                ASSERT_TRUE(r.ok) << r.error;
                EXPECT_EQ(r.r0, 0u);
            }
        }
        ctx_.invoke_callback = &host_less;
        EXPECT_EQ(shape(root), host_shape) << (engine ? "jit" : "interp");
        std::vector<long> out;
        for (long r; (r = take_first(root)) >= 0;)
            out.push_back(r / 10);
        EXPECT_EQ(out, (std::vector<long>{0, 1, 2, 3, 4, 4, 5})) << (engine ? "jit" : "interp");
    }
    EXPECT_FALSE(ctx_.aborted) << ctx_.abort_message;
}

// The rows' BTF parameter names, widths and return widths are the running kernel's (vmlinux BTF).
TEST(GraphKfuncRows, MatchTheKernelsBtf) {
    btf* vmlinux = btf__load_vmlinux_btf();
    if (!vmlinux)
        GTEST_SKIP() << "no kernel BTF (/sys/kernel/btf/vmlinux) to compare the rows with";
    const char* names[] = {
        "bpf_refcount_acquire_impl", "bpf_list_push_front_impl", "bpf_list_push_back_impl", "bpf_list_pop_front",
        "bpf_list_pop_back",         "bpf_list_front",           "bpf_list_back",           "bpf_rbtree_remove",
        "bpf_rbtree_add_impl",       "bpf_rbtree_first",         "bpf_rbtree_root",         "bpf_rbtree_left",
        "bpf_rbtree_right"};
    for (const char* name : names) {
        const int k = kfunc_index(name);
        ASSERT_GE(k, 0) << name;
        const KfuncProto& row = kfunc_table()[size_t(k)];
        const int id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC);
        if (id <= 0) {
            ADD_FAILURE() << name << " is not in this kernel's BTF";
            continue;
        }
        const btf_type* proto = btf__type_by_id(vmlinux, btf__type_by_id(vmlinux, uint32_t(id))->type);
        ASSERT_EQ(int(btf_vlen(proto)), int(row.nparams)) << name;
        for (int i = 0; i < row.nparams; i++) {
            const btf_param& p = btf_params(proto)[i];
            EXPECT_STREQ(btf__name_by_offset(vmlinux, p.name_off), row.params[size_t(i)].name) << name;
            const btf_type* t = btf__type_by_id(vmlinux, p.type);
            EXPECT_EQ(btf_is_ptr(t), row.params[size_t(i)].kind == KfuncParamKind::ptr) << name << " arg " << i;
            EXPECT_EQ(btf__resolve_size(vmlinux, p.type), int64_t(row.params[size_t(i)].size)) << name << " arg " << i;
        }
        EXPECT_EQ(btf__resolve_size(vmlinux, proto->type), int64_t(row.ret_size)) << name;
    }
    btf__free(vmlinux);
}

} // namespace
} // namespace strbpf::runtime
