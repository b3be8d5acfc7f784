// The 15 string kfuncs (runtime stage): the kernel's x86-64 pointer checks (-ERANGE before any read, every string
// pointer in argument order), then the dispatched string kernels over each pointer's readable span.
#include "runtime/kfuncs/string_kfuncs.hpp"

#include "runtime/strings/dispatch.hpp"

namespace strbpf::runtime::kfuncs {

namespace {
using strings::kMaxLen;
using strings::ops;
using strings::Str;

inline Str str_at(const RunContext* ctx, uint64_t addr) {
    return Str{reinterpret_cast<const uint8_t*>(addr), ctx ? ctx->mem.readable_span(addr) : 0};
}
inline uint64_t ret(int v) { return static_cast<uint32_t>(v); }
inline bool refused(const RunContext* ctx, uint64_t a) {
    return ctx ? ctx->mem.address_refused(a) : is_forbidden_address_class(a);
}
inline uint8_t as_char(uint64_t r) { return static_cast<uint8_t>(r); } // char: low 8 bits, unsigned
inline int32_t as_int(uint64_t r) { return static_cast<int32_t>(static_cast<uint32_t>(r)); } // int: low 32 bits
const uint64_t kRange = static_cast<uint32_t>(-strings::kERANGE);
} // namespace

uint64_t bpf_strcmp(uint64_t s1, uint64_t s2, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return (refused(ctx, s1) || refused(ctx, s2)) ? kRange : ret(ops().cmp(str_at(ctx, s1), str_at(ctx, s2), kMaxLen, false));
}
uint64_t bpf_strcasecmp(uint64_t s1, uint64_t s2, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return (refused(ctx, s1) || refused(ctx, s2)) ? kRange : ret(ops().cmp(str_at(ctx, s1), str_at(ctx, s2), kMaxLen, true));
}
uint64_t bpf_strncasecmp(uint64_t s1, uint64_t s2, uint64_t len, uint64_t, uint64_t, RunContext* ctx) {
    return (refused(ctx, s1) || refused(ctx, s2)) ? kRange : ret(ops().cmp(str_at(ctx, s1), str_at(ctx, s2), len, true));
}
uint64_t bpf_strchr(uint64_t s, uint64_t c, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return refused(ctx, s) ? kRange : ret(ops().nchr(str_at(ctx, s), kMaxLen, as_char(c)));
}
uint64_t bpf_strchrnul(uint64_t s, uint64_t c, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return refused(ctx, s) ? kRange : ret(ops().chrnul(str_at(ctx, s), as_char(c)));
}
uint64_t bpf_strnchr(uint64_t s, uint64_t count, uint64_t c, uint64_t, uint64_t, RunContext* ctx) {
    return refused(ctx, s) ? kRange : ret(ops().nchr(str_at(ctx, s), count, as_char(c)));
}
uint64_t bpf_strrchr(uint64_t s, uint64_t c, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return refused(ctx, s) ? kRange : ret(ops().rchr(str_at(ctx, s), as_int(c)));
}
uint64_t bpf_strlen(uint64_t s, uint64_t, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return refused(ctx, s) ? kRange : ret(ops().nlen(str_at(ctx, s), kMaxLen));
}
uint64_t bpf_strnlen(uint64_t s, uint64_t count, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return refused(ctx, s) ? kRange : ret(ops().nlen(str_at(ctx, s), count));
}
uint64_t bpf_strspn(uint64_t s, uint64_t accept, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return (refused(ctx, s) || refused(ctx, accept)) ? kRange : ret(ops().spn(str_at(ctx, s), str_at(ctx, accept)));
}
uint64_t bpf_strcspn(uint64_t s, uint64_t reject, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return (refused(ctx, s) || refused(ctx, reject)) ? kRange : ret(ops().cspn(str_at(ctx, s), str_at(ctx, reject)));
}
uint64_t bpf_strstr(uint64_t s1, uint64_t s2, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return (refused(ctx, s1) || refused(ctx, s2)) ? kRange : ret(ops().nstr(str_at(ctx, s1), str_at(ctx, s2), kMaxLen, false));
}
uint64_t bpf_strcasestr(uint64_t s1, uint64_t s2, uint64_t, uint64_t, uint64_t, RunContext* ctx) {
    return (refused(ctx, s1) || refused(ctx, s2)) ? kRange : ret(ops().nstr(str_at(ctx, s1), str_at(ctx, s2), kMaxLen, true));
}
uint64_t bpf_strnstr(uint64_t s1, uint64_t s2, uint64_t len, uint64_t, uint64_t, RunContext* ctx) {
    return (refused(ctx, s1) || refused(ctx, s2)) ? kRange : ret(ops().nstr(str_at(ctx, s1), str_at(ctx, s2), len, false));
}
uint64_t bpf_strncasestr(uint64_t s1, uint64_t s2, uint64_t len, uint64_t, uint64_t, RunContext* ctx) {
    return (refused(ctx, s1) || refused(ctx, s2)) ? kRange : ret(ops().nstr(str_at(ctx, s1), str_at(ctx, s2), len, true));
}

} // namespace strbpf::runtime::kfuncs
