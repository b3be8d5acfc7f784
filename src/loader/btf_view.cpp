// SPDX-License-Identifier: BSD-2-Clause
// BtfView, BtfRef's btfv:: functions and the per-process kernel BTF cache (see btf_view.hpp). The index is one pass
// over the type section that checks every record lies inside it; nothing past the header is trusted beyond that
// (a type naming an id out of range reads as null, a name outside the string section as null), as libbpf answers.
#include "loader/btf_view.hpp"

#include <bpf/btf.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

// libbpf.h's libbpf_strerror (that header defines the uAPI's BPF_* names, which isa/insn.hpp declares too).
extern "C" int libbpf_strerror(int err, char* buf, size_t size);

namespace strbpf {
namespace {

constexpr int kMaxResolveDepth = 32; // libbpf's MAX_RESOLVE_DEPTH
constexpr size_t kPointerSize = 8;   // x86-64 kernel BTF

const btf_type kVoid{}; // type id 0

// Bytes of the kind-specific data after a type's common header; -1 for a kind this reader does not know.
int64_t tail_size(const btf_type* t) {
    const uint64_t n = btf_vlen(t);
    switch (btf_kind(t)) {
    case BTF_KIND_FWD:
    case BTF_KIND_CONST:
    case BTF_KIND_VOLATILE:
    case BTF_KIND_RESTRICT:
    case BTF_KIND_PTR:
    case BTF_KIND_TYPEDEF:
    case BTF_KIND_FUNC:
    case BTF_KIND_FLOAT:
    case BTF_KIND_TYPE_TAG:
        return 0;
    case BTF_KIND_INT:
        return 4;
    case BTF_KIND_ENUM:
        return int64_t(n * sizeof(struct btf_enum));
    case BTF_KIND_ENUM64:
        return int64_t(n * sizeof(struct btf_enum64));
    case BTF_KIND_ARRAY:
        return sizeof(struct btf_array);
    case BTF_KIND_STRUCT:
    case BTF_KIND_UNION:
        return int64_t(n * sizeof(struct btf_member));
    case BTF_KIND_FUNC_PROTO:
        return int64_t(n * sizeof(struct btf_param));
    case BTF_KIND_VAR:
        return sizeof(struct btf_var);
    case BTF_KIND_DATASEC:
        return int64_t(n * sizeof(struct btf_var_secinfo));
    case BTF_KIND_DECL_TAG:
        return sizeof(struct btf_decl_tag);
    default:
        return -1;
    }
}

// libbpf counts a forward declaration as void when resolving: it has no type to resolve to.
bool is_void_or_null(const btf_type* t) { return !t || btf_kind(t) == BTF_KIND_UNKN || btf_is_fwd(t); }

} // namespace

BtfView::~BtfView() {
    if (map_)
        ::munmap(map_, map_size_);
}

Result<std::unique_ptr<BtfView>> BtfView::map_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return make_error(fmt::format("cannot open {}: {}", path, std::strerror(errno)), -errno);
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_size <= 0 || uint64_t(st.st_size) >= (1ull << 31)) {
        ::close(fd);
        return make_error(fmt::format("{}: not a BTF file of a usable size", path));
    }
    void* p = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    const int err = errno;
    ::close(fd);
    if (p == MAP_FAILED)
        return make_error(fmt::format("cannot map {}: {}", path, std::strerror(err)), -err);
    std::unique_ptr<BtfView> v(new BtfView);
    v->map_ = p;
    v->map_size_ = size_t(st.st_size);
    if (auto s = v->open(static_cast<const uint8_t*>(p), v->map_size_); !s)
        return make_error(fmt::format("{}: {}", path, s.error().message), s.error().code);
    return v;
}

Result<std::unique_ptr<BtfView>> BtfView::over(const uint8_t* bytes, size_t size) {
    std::unique_ptr<BtfView> v(new BtfView);
    STRBPF_TRY(v->open(bytes, size));
    return v;
}

Status BtfView::open(const uint8_t* bytes, size_t size) {
    btf_header h{};
    if (size < sizeof h)
        return make_error("BTF shorter than its header");
    std::memcpy(&h, bytes, sizeof h);
    if (h.magic != BTF_MAGIC || h.version != BTF_VERSION)
        return make_error("not raw BTF in this host's byte order");
    const uint64_t base = h.hdr_len;
    if (h.hdr_len < sizeof h || base + h.type_off + h.type_len > size || base + h.str_off + h.str_len > size ||
        h.type_off % 4 != 0 || h.str_len == 0 || bytes[base + h.str_off + h.str_len - 1] != 0)
        return make_error("BTF header's sections lie outside the data");
    types_ = bytes + base + h.type_off;
    types_len_ = h.type_len;
    strs_ = reinterpret_cast<const char*>(bytes + base + h.str_off);
    strs_len_ = h.str_len;
    offsets_.reset(new uint32_t[types_len_ / sizeof(btf_type) + 1]); // untouched pages cost nothing
    offsets_[0] = 0;                                                 // void
    count_.store(1, std::memory_order_release);
    return ok_status();
}

bool BtfView::reach(uint32_t id) const {
    if (id < count_.load(std::memory_order_acquire))
        return true;
    std::lock_guard lock(mu_);
    uint32_t n = count_.load(std::memory_order_relaxed);
    while (n <= id && next_ < types_len_) {
        const uint64_t left = types_len_ - next_;
        const auto* t = reinterpret_cast<const btf_type*>(types_ + next_);
        const int64_t tail = left < sizeof(btf_type) ? -1 : tail_size(t);
        if (tail < 0 || uint64_t(tail) > left - sizeof(btf_type)) {
            next_ = types_len_; // cut off, an unknown kind or running past the section: the types end here
            break;
        }
        offsets_[n++] = uint32_t(next_);
        next_ += sizeof(btf_type) + uint64_t(tail);
        if (n % 4096 == 0)
            count_.store(n, std::memory_order_release);
    }
    count_.store(n, std::memory_order_release);
    return id < n;
}

uint32_t BtfView::type_cnt() const {
    reach(UINT32_MAX - 1);
    return count_.load(std::memory_order_acquire);
}

const btf_type* BtfView::type_by_id(uint32_t id) const {
    if (id == 0)
        return &kVoid;
    if (!reach(id))
        return nullptr;
    return reinterpret_cast<const btf_type*>(types_ + offsets_[id]);
}

const char* BtfView::name_by_offset(uint32_t off) const { return off < strs_len_ ? strs_ + off : nullptr; }

int32_t BtfView::find_by_name_kind(const char* name, uint32_t kind) const {
    if (kind == BTF_KIND_UNKN || std::strcmp(name, "void") == 0)
        return 0;
    for (uint32_t id = 1; reach(id); ++id) {
        const btf_type* t = reinterpret_cast<const btf_type*>(types_ + offsets_[id]);
        if (btf_kind(t) != kind)
            continue;
        const char* n = name_by_offset(t->name_off);
        if (n && std::strcmp(n, name) == 0)
            return int32_t(id);
    }
    return -ENOENT;
}

Result<BtfRef> kernel_btf(const std::string& path) {
    struct Entry {
        std::unique_ptr<BtfView> view;
        std::unique_ptr<struct btf, void (*)(struct btf*)> lib{nullptr, btf__free};
        std::string error;
        int code = 0;
    };
    static std::mutex mu;
    static std::map<std::string, Entry> cache;
    const std::string file = path.empty() ? "/sys/kernel/btf/vmlinux" : path;
    std::lock_guard lock(mu);
    auto [it, fresh] = cache.try_emplace(file);
    Entry& e = it->second;
    if (fresh) {
        if (auto v = BtfView::map_file(file)) {
            e.view = std::move(*v);
        } else {
            errno = 0;
            e.lib.reset(btf__parse(file.c_str(), nullptr));
            if (!e.lib) {
                e.code = errno ? errno : EINVAL;
                char why[128] = "";
                libbpf_strerror(e.code, why, sizeof why); // libbpf's own codes too (-LIBBPF_ERRNO__FORMAT)
                e.error = why;
            }
        }
    }
    if (e.view)
        return BtfRef(e.view.get());
    if (e.lib)
        return BtfRef(e.lib.get());
    return make_error(e.error, -e.code);
}

namespace btfv {

const btf_type* type_by_id(BtfRef b, uint32_t id) {
    if (const BtfView* v = b.view())
        return v->type_by_id(id);
    return btf__type_by_id(b.libbpf(), id);
}

const char* name_by_offset(BtfRef b, uint32_t off) {
    if (const BtfView* v = b.view())
        return v->name_by_offset(off);
    return btf__name_by_offset(b.libbpf(), off);
}

int32_t find_by_name_kind(BtfRef b, const char* name, uint32_t kind) {
    if (const BtfView* v = b.view())
        return v->find_by_name_kind(name, kind);
    return btf__find_by_name_kind(b.libbpf(), name, kind);
}

uint32_t type_cnt(BtfRef b) {
    if (const BtfView* v = b.view())
        return v->type_cnt();
    return btf__type_cnt(b.libbpf());
}

// libbpf's rule: follow modifiers, typedefs, vars and tags, multiply out arrays; -EINVAL for a type without a size,
// -E2BIG past 32 bits.
int64_t resolve_size(BtfRef b, uint32_t id) {
    if (!b.view())
        return btf__resolve_size(b.libbpf(), id);
    uint64_t nelems = 1;
    for (int depth = 0; depth < kMaxResolveDepth; ++depth) {
        const btf_type* t = type_by_id(b, id);
        if (!t)
            return -EINVAL;
        uint64_t size = 0;
        switch (btf_kind(t)) {
        case BTF_KIND_INT:
        case BTF_KIND_STRUCT:
        case BTF_KIND_UNION:
        case BTF_KIND_ENUM:
        case BTF_KIND_ENUM64:
        case BTF_KIND_DATASEC:
        case BTF_KIND_FLOAT:
            size = t->size;
            break;
        case BTF_KIND_PTR:
            size = kPointerSize;
            break;
        case BTF_KIND_TYPEDEF:
        case BTF_KIND_VOLATILE:
        case BTF_KIND_CONST:
        case BTF_KIND_RESTRICT:
        case BTF_KIND_VAR:
        case BTF_KIND_DECL_TAG:
        case BTF_KIND_TYPE_TAG:
            id = t->type;
            continue;
        case BTF_KIND_ARRAY: {
            const struct btf_array* a = btf_array(t);
            nelems *= a->nelems;
            if (nelems > UINT32_MAX)
                return -E2BIG;
            id = a->type;
            continue;
        }
        default:
            return -EINVAL;
        }
        if (nelems * size > UINT32_MAX)
            return -E2BIG;
        return int64_t(nelems * size);
    }
    return -EINVAL;
}

int32_t resolve_type(BtfRef b, uint32_t id) {
    if (!b.view())
        return btf__resolve_type(b.libbpf(), id);
    const btf_type* t = type_by_id(b, id);
    int depth = 0;
    while (depth < kMaxResolveDepth && !is_void_or_null(t) && (btf_is_mod(t) || btf_is_typedef(t) || btf_is_var(t))) {
        id = t->type;
        t = type_by_id(b, id);
        ++depth;
    }
    if (depth == kMaxResolveDepth || is_void_or_null(t))
        return -EINVAL;
    return int32_t(id);
}

} // namespace btfv
} // namespace strbpf
