// SPDX-License-Identifier: BSD-2-Clause
// The graph kfuncs (runtime stage): graph_kfuncs.hpp.
#include "runtime/kfuncs/graph_kfuncs.hpp"

#include <cerrno>
#include <fmt/format.h>
#include <immintrin.h>
#include <vector>

#include "runtime/helpers/helper_checks.hpp"
#include "runtime/kfuncs/obj_kfuncs.hpp"

namespace strbpf::runtime::kfuncs {
namespace {

uint64_t ret(int64_t v) { return uint64_t(uint32_t(int32_t(v))); } // a C int in R0

// The owner a node being added has for the moment (the kernel's BPF_PTR_POISON), and the one a list's nodes keep
// after their head was freed: never a head's or root's address.
constexpr uint64_t kOwnerPoison = 0xeb9f000000000000ull;

struct ListLink {
    ListLink* next;
    ListLink* prev;
};
struct ListNode {
    ListLink link;
    uint64_t owner;
};
static_assert(sizeof(ListLink) == 16 && sizeof(ListNode) == 24); // struct bpf_list_head, struct bpf_list_node

struct RbNode {
    uintptr_t parent_color; // the parent's address | 1 when black
    RbNode* right;
    RbNode* left;
    uint64_t owner;
};
struct RbRoot {
    RbNode* top;
    RbNode* leftmost;
};
static_assert(sizeof(RbNode) == 32 && sizeof(RbRoot) == 16); // struct bpf_rb_node, struct bpf_rb_root

uint64_t owner_of(const uint64_t* owner) { return __atomic_load_n(owner, __ATOMIC_ACQUIRE); }
void set_owner(uint64_t* owner, uint64_t v) { __atomic_store_n(owner, v, __ATOMIC_RELEASE); }
bool claim(uint64_t* owner) { // cmpxchg(&node->owner, NULL, BPF_PTR_POISON) succeeded
    uint64_t expected = 0;
    return __atomic_compare_exchange_n(owner, &expected, kOwnerPoison, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

// The head or root argument: verified programs pass a graph root the verifier typed; the checked interpreter's
// (unverified) ones must at least point at writable program memory or into a live object.
bool root_ok(uint64_t p, uint64_t size, RunContext* ctx, const char* kfunc) {
    if (ctx->verified || obj_containing(p, size))
        return true;
    return checked_mem(p, size, kPermRW, ctx, "the graph root", kfunc);
}

// The live object holding the node at P (SIZE bytes); ends the run when there is none.
uint64_t node_object(uint64_t p, uint64_t size, RunContext* ctx, const char* kfunc) {
    const uint64_t obj = obj_containing(p, size);
    if (!obj)
        ctx->abort(fmt::format("{}: the node at {:#x} lies in no live bpf_obj_new object", kfunc, p));
    return obj;
}

// ---- lists (include/linux/list.h's circular list) ----

ListLink* list_of(uint64_t head) {
    auto* h = reinterpret_cast<ListLink*>(head);
    if (!h->next) // a zeroed head (a fresh map value, .bss): INIT_LIST_HEAD
        h->next = h->prev = h;
    return h;
}

uint64_t list_push(uint64_t head, uint64_t node, bool tail, RunContext* ctx, const char* kfunc) {
    if (!root_ok(head, sizeof(ListLink), ctx, kfunc))
        return 0;
    const uint64_t obj = node_object(node, sizeof(ListNode), ctx, kfunc);
    if (!obj)
        return 0;
    ListLink* h = list_of(head);
    auto* n = reinterpret_cast<ListNode*>(node);
    if (!claim(&n->owner)) { // on a list already: the reference passed in is dropped
        obj_drop(obj);
        return ret(-EINVAL);
    }
    ListLink* prev = tail ? h->prev : h;
    ListLink* next = prev->next;
    n->link.prev = prev;
    n->link.next = next;
    prev->next = &n->link;
    next->prev = &n->link;
    set_owner(&n->owner, head);
    return 0;
}

uint64_t list_take(uint64_t head, bool tail, bool remove, RunContext* ctx, const char* kfunc) {
    if (!root_ok(head, sizeof(ListLink), ctx, kfunc))
        return 0;
    ListLink* h = list_of(head);
    if (h->next == h)
        return 0;
    auto* n = reinterpret_cast<ListNode*>(tail ? h->prev : h->next);
    if (!remove)
        return reinterpret_cast<uint64_t>(n);
    if (owner_of(&n->owner) != head) // the kernel's WARN_ON_ONCE: not reachable through the kfuncs
        return 0;
    n->link.prev->next = n->link.next;
    n->link.next->prev = n->link.prev;
    n->link.next = n->link.prev = &n->link; // list_del_init
    set_owner(&n->owner, 0);
    return reinterpret_cast<uint64_t>(n);
}

// ---- red-black trees (lib/rbtree.c's algorithm; NULL leaves are black) ----

constexpr uintptr_t kBlack = 1;

RbNode* parent(const RbNode* n) { return reinterpret_cast<RbNode*>(n->parent_color & ~kBlack); }
bool is_red(const RbNode* n) { return n && !(n->parent_color & kBlack); }
void set_parent(RbNode* n, RbNode* p) { n->parent_color = reinterpret_cast<uintptr_t>(p) | (n->parent_color & kBlack); }
void paint(RbNode* n, uintptr_t color) { n->parent_color = (n->parent_color & ~kBlack) | color; }

// OLD's place under P (the root when P is null) given to NEW.
void change_child(RbRoot* r, RbNode* p, const RbNode* old, RbNode* nw) {
    if (!p)
        r->top = nw;
    else if (p->left == old)
        p->left = nw;
    else
        p->right = nw;
}

// X's right (left) child takes X's place, X becomes its left (right) child.
void rotate(RbRoot* r, RbNode* x, bool left) {
    RbNode* y = left ? x->right : x->left;
    RbNode* inner = left ? y->left : y->right;
    (left ? x->right : x->left) = inner;
    if (inner)
        set_parent(inner, x);
    (left ? y->left : y->right) = x;
    RbNode* p = parent(x);
    set_parent(y, p);
    change_child(r, p, x, y);
    set_parent(x, y);
}

void insert_fixup(RbRoot* r, RbNode* n) {
    for (;;) {
        RbNode* p = parent(n);
        if (!p) {
            paint(n, kBlack);
            return;
        }
        if (!is_red(p))
            return;
        RbNode* g = parent(p); // p is red, so not the root
        const bool p_left = g->left == p;
        RbNode* uncle = p_left ? g->right : g->left;
        if (is_red(uncle)) { // recolour and go up
            paint(p, kBlack);
            paint(uncle, kBlack);
            paint(g, 0);
            n = g;
            continue;
        }
        if (n == (p_left ? p->right : p->left)) { // the inner grandchild: rotate it outside first
            rotate(r, p, p_left);
            p = n;
        }
        rotate(r, g, !p_left);
        paint(p, kBlack);
        paint(g, 0);
        return;
    }
}

// ____rb_erase_color: a black node was removed below P (on the side whose child is X, null at first).
void erase_fixup(RbRoot* r, RbNode* p) {
    RbNode* x = nullptr;
    for (;;) {
        const bool x_left = x != p->right;
        RbNode* s = x_left ? p->right : p->left;
        if (is_red(s)) { // a red sibling: rotate it above P
            rotate(r, p, x_left);
            paint(s, kBlack);
            paint(p, 0);
            s = x_left ? p->right : p->left;
        }
        RbNode* far = x_left ? s->right : s->left;
        if (!is_red(far)) {
            RbNode* near = x_left ? s->left : s->right;
            if (!is_red(near)) { // both nephews black: the sibling turns red, the deficit moves up
                paint(s, 0);
                if (is_red(p)) {
                    paint(p, kBlack);
                    return;
                }
                x = p;
                p = parent(x);
                if (!p)
                    return;
                continue;
            }
            rotate(r, s, !x_left); // the near nephew above the sibling
            far = s;
            s = near;
        }
        const uintptr_t color = p->parent_color & kBlack;
        rotate(r, p, x_left);
        paint(s, color);
        paint(p, kBlack);
        paint(far, kBlack);
        return;
    }
}

RbNode* rb_next(const RbNode* n) {
    if (n->right) {
        RbNode* m = n->right;
        while (m->left)
            m = m->left;
        return m;
    }
    RbNode* p = parent(n);
    while (p && n == p->right) {
        n = p;
        p = parent(n);
    }
    return p;
}

// rb_erase_cached.
void rb_erase(RbRoot* r, RbNode* n) {
    if (r->leftmost == n)
        r->leftmost = rb_next(n);
    RbNode* rebalance = nullptr;
    if (!n->left) { // at most a right child, which takes N's place and colour
        RbNode* p = parent(n);
        change_child(r, p, n, n->right);
        if (n->right)
            n->right->parent_color = n->parent_color;
        else if (n->parent_color & kBlack)
            rebalance = p;
    } else if (!n->right) { // only a left child
        n->left->parent_color = n->parent_color;
        change_child(r, parent(n), n, n->left);
    } else { // two children: the successor takes N's place and colour
        RbNode* succ = n->right;
        RbNode* p = succ;
        RbNode* child;
        if (!succ->left) {
            child = succ->right;
        } else {
            while (succ->left) {
                p = succ;
                succ = succ->left;
            }
            child = succ->right;
            p->left = child;
            succ->right = n->right;
            set_parent(n->right, succ);
        }
        succ->left = n->left;
        set_parent(n->left, succ);
        change_child(r, parent(n), n, succ);
        if (child)
            child->parent_color = reinterpret_cast<uintptr_t>(p) | kBlack;
        else if (succ->parent_color & kBlack)
            rebalance = p;
        succ->parent_color = n->parent_color;
    }
    if (rebalance)
        erase_fixup(r, rebalance);
}

void rb_clear(RbNode* n) { // RB_CLEAR_NODE
    n->parent_color = reinterpret_cast<uintptr_t>(n);
    n->left = n->right = nullptr;
}

void take_lock(uint32_t* word) { // as bpf_spin_lock_helper takes it
    while (__atomic_exchange_n(word, 1u, __ATOMIC_ACQUIRE) != 0)
        while (__atomic_load_n(word, __ATOMIC_RELAXED) != 0)
            _mm_pause();
}
void release_lock(uint32_t* word) { __atomic_store_n(word, 0u, __ATOMIC_RELEASE); }

} // namespace

uint64_t bpf_list_push_front_impl(uint64_t head, uint64_t node, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return list_push(head, node, false, ctx, "bpf_list_push_front_impl");
}
uint64_t bpf_list_push_back_impl(uint64_t head, uint64_t node, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return list_push(head, node, true, ctx, "bpf_list_push_back_impl");
}
uint64_t bpf_list_pop_front(uint64_t head, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return list_take(head, false, true, ctx, "bpf_list_pop_front");
}
uint64_t bpf_list_pop_back(uint64_t head, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return list_take(head, true, true, ctx, "bpf_list_pop_back");
}
uint64_t bpf_list_front(uint64_t head, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return list_take(head, false, false, ctx, "bpf_list_front");
}
uint64_t bpf_list_back(uint64_t head, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return list_take(head, true, false, ctx, "bpf_list_back");
}

uint64_t bpf_rbtree_add_impl(uint64_t root, uint64_t node, uint64_t less, uint64_t, uint64_t, RunContext* ctx) {
    const char* kfunc = "bpf_rbtree_add_impl";
    if (!root_ok(root, sizeof(RbRoot), ctx, kfunc))
        return 0;
    const uint64_t obj = node_object(node, sizeof(RbNode), ctx, kfunc);
    if (!obj)
        return 0;
    if (!ctx->invoke_callback) {
        ctx->abort(std::string(kfunc) + ": this engine does not run callbacks");
        return 0;
    }
    auto* r = reinterpret_cast<RbRoot*>(root);
    auto* n = reinterpret_cast<RbNode*>(node);
    if (!claim(&n->owner)) { // in a tree already: the reference passed in is dropped
        obj_drop(obj);
        return ret(-EINVAL);
    }
    RbNode** link = &r->top;
    RbNode* p = nullptr;
    bool leftmost = true;
    while (*link) {
        p = *link;
        const uint64_t is_less = ctx->invoke_callback(ctx, less, node, reinterpret_cast<uint64_t>(p), 0, 0, 0);
        if (ctx->aborted)
            return 0;
        if (uint8_t(is_less)) { // the callback's bool
            link = &p->left;
        } else {
            link = &p->right;
            leftmost = false;
        }
    }
    n->parent_color = reinterpret_cast<uintptr_t>(p); // red
    n->left = n->right = nullptr;
    *link = n;
    insert_fixup(r, n);
    if (leftmost)
        r->leftmost = n;
    set_owner(&n->owner, root);
    return 0;
}

uint64_t bpf_rbtree_remove(uint64_t root, uint64_t node, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    const char* kfunc = "bpf_rbtree_remove";
    if (!root_ok(root, sizeof(RbRoot), ctx, kfunc) || !node_object(node, sizeof(RbNode), ctx, kfunc))
        return 0;
    auto* n = reinterpret_cast<RbNode*>(node);
    if (owner_of(&n->owner) != root)
        return 0;
    rb_erase(reinterpret_cast<RbRoot*>(root), n);
    rb_clear(n);
    set_owner(&n->owner, 0);
    return node;
}

uint64_t bpf_rbtree_first(uint64_t root, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    if (!root_ok(root, sizeof(RbRoot), ctx, "bpf_rbtree_first"))
        return 0;
    return reinterpret_cast<uint64_t>(reinterpret_cast<RbRoot*>(root)->leftmost);
}

uint64_t bpf_rbtree_root(uint64_t root, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    if (!root_ok(root, sizeof(RbRoot), ctx, "bpf_rbtree_root"))
        return 0;
    return reinterpret_cast<uint64_t>(reinterpret_cast<RbRoot*>(root)->top);
}

namespace {
uint64_t rb_child(uint64_t root, uint64_t node, bool left, RunContext* ctx, const char* kfunc) {
    if (!root_ok(root, sizeof(RbRoot), ctx, kfunc) || !node_object(node, sizeof(RbNode), ctx, kfunc))
        return 0;
    auto* n = reinterpret_cast<RbNode*>(node);
    if (owner_of(&n->owner) != root)
        return 0;
    return reinterpret_cast<uint64_t>(left ? n->left : n->right);
}
} // namespace

uint64_t bpf_rbtree_left(uint64_t root, uint64_t node, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return rb_child(root, node, true, ctx, "bpf_rbtree_left");
}
uint64_t bpf_rbtree_right(uint64_t root, uint64_t node, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return rb_child(root, node, false, ctx, "bpf_rbtree_right");
}

void list_head_free(void* p, uint32_t* lock) {
    auto* h = static_cast<ListLink*>(p);
    if (lock)
        take_lock(lock);
    ListLink* first = h->next && h->next != h ? h->next : h;
    ListLink* last = first != h ? h->prev : h;
    h->next = h->prev = h; // INIT_LIST_HEAD
    if (lock)
        release_lock(lock);
    if (first == h)
        return;
    last->next = nullptr; // the detached chain ends at its last node
    for (ListLink* at = first; at;) {
        auto* n = reinterpret_cast<ListNode*>(at);
        at = at->next;
        n->link.next = n->link.prev = &n->link;
        set_owner(&n->owner, kOwnerPoison); // the kernel leaves the freed head's address: non-NULL either way
        obj_drop(obj_containing(reinterpret_cast<uint64_t>(n), sizeof(ListNode)));
    }
}

void rb_root_free(void* p, uint32_t* lock) {
    auto* r = static_cast<RbRoot*>(p);
    std::vector<RbNode*> nodes;
    if (lock)
        take_lock(lock);
    std::vector<RbNode*> stack; // every node, by an explicit walk
    if (r->top)
        stack.push_back(r->top);
    while (!stack.empty()) {
        RbNode* n = stack.back();
        stack.pop_back();
        nodes.push_back(n);
        if (n->left)
            stack.push_back(n->left);
        if (n->right)
            stack.push_back(n->right);
        set_owner(&n->owner, kOwnerPoison);
    }
    r->top = r->leftmost = nullptr; // RB_ROOT_CACHED
    if (lock)
        release_lock(lock);
    for (RbNode* n : nodes) {
        rb_clear(n);
        set_owner(&n->owner, 0); // unlinked: a surviving (refcounted) object may be added again
        obj_drop(obj_containing(reinterpret_cast<uint64_t>(n), sizeof(RbNode)));
    }
}

} // namespace strbpf::runtime::kfuncs
