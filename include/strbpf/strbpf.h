// SPDX-License-Identifier: BSD-2-Clause
/* strbpf's C API: the lifecycle of include/strbpf/object.hpp for C (and any language with a C FFI).
 *   strbpf_object_open_file / _open_mem -> strbpf_object_set_global -> strbpf_object_load
 *   -> strbpf_program_run / strbpf_runner_run, strbpf_map_* -> strbpf_object_close
 * Handles are opaque. Functions that can fail return 0 or a negative errno (-ENOENT, -EINVAL, -EACCES for a
 * program the verifier rejected, -EBUSY after load, ...); strbpf_last_error() is the message of this thread's last
 * failure. Programs, maps and their names belong to their object: valid until strbpf_object_close. */
#ifndef STRBPF_STRBPF_H
#define STRBPF_STRBPF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STRBPF_VERSION_MAJOR 0

typedef struct strbpf_object strbpf_object;
typedef struct strbpf_program strbpf_program;
typedef struct strbpf_map strbpf_map;
typedef struct strbpf_runner strbpf_runner;

enum strbpf_engine { STRBPF_ENGINE_JIT = 0, STRBPF_ENGINE_INTERP = 1, STRBPF_ENGINE_INTERP_CHECKED = 2 };
enum strbpf_log_level { STRBPF_LOG_WARN = 0, STRBPF_LOG_INFO = 1, STRBPF_LOG_DEBUG = 2 };

typedef void (*strbpf_log_fn)(enum strbpf_log_level level, const char* msg, void* user);

/* The embedder's own helpers, kfuncs and program types, declared as data the verifier reads (include/strbpf/extensions.hpp
 * says what each kind means). A program misusing a helper is rejected in the kernel's words; accepted programs call
 * the function directly from the interpreter and the JIT. Objects opened with a set freeze it (adding then answers
 * -EBUSY) and keep what they need: strbpf_extensions_free may come before strbpf_object_close. */
typedef struct strbpf_extensions strbpf_extensions;
typedef struct strbpf_call strbpf_call; /* the run, as a helper sees it */

enum strbpf_arg_kind {
    STRBPF_ARG_NONE = 0,
    STRBPF_ARG_ANYTHING,              /* ARG_ANYTHING */
    STRBPF_ARG_SCALAR,                /* ARG_SCALAR */
    STRBPF_ARG_PTR_TO_MEM,            /* ARG_PTR_TO_MEM (a size argument follows) */
    STRBPF_ARG_PTR_TO_MEM_RDONLY,     /* ARG_PTR_TO_MEM | MEM_RDONLY (a size follows) */
    STRBPF_ARG_PTR_TO_MEM_RDONLY_OR_NULL, /* ... | PTR_MAYBE_NULL (NULL with size 0) */
    STRBPF_ARG_PTR_TO_UNINIT_MEM,     /* ARG_PTR_TO_UNINIT_MEM (a size follows) */
    STRBPF_ARG_CONST_SIZE,            /* ARG_CONST_SIZE */
    STRBPF_ARG_CONST_SIZE_OR_ZERO,    /* ARG_CONST_SIZE_OR_ZERO */
    STRBPF_ARG_PTR_TO_CONST_STR,      /* ARG_PTR_TO_CONST_STR */
    STRBPF_ARG_PTR_TO_CTX,            /* ARG_PTR_TO_CTX */
    STRBPF_ARG_CONST_MAP_PTR,         /* ARG_CONST_MAP_PTR */
    STRBPF_ARG_PTR_TO_MAP_KEY,        /* ARG_PTR_TO_MAP_KEY */
    STRBPF_ARG_PTR_TO_MAP_VALUE,      /* ARG_PTR_TO_MAP_VALUE */
    STRBPF_ARG_PTR_TO_STACK_OR_NULL,  /* ARG_PTR_TO_STACK_OR_NULL */
    STRBPF_ARG_PTR_TO_LONG            /* a u64 the helper writes */
};
enum strbpf_ret_kind { STRBPF_RET_INTEGER = 0, STRBPF_RET_VOID, STRBPF_RET_MAP_VALUE_OR_NULL };

#define STRBPF_HELPER_ID_MIN 0x10000
#define STRBPF_HELPER_ID_MAX 0x1ffff

typedef uint64_t (*strbpf_helper_fn)(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5,
                                     strbpf_call* call);

struct strbpf_helper_def {
    size_t sz;              /* sizeof(struct strbpf_helper_def) */
    const char* name;
    int32_t id;             /* STRBPF_HELPER_ID_MIN..STRBPF_HELPER_ID_MAX */
    strbpf_helper_fn fn;
    enum strbpf_ret_kind ret;
    int has_ret_range;      /* RET_INTEGER in [ret_min, ret_max]: assumed by the verifier, checked at run time */
    int64_t ret_min, ret_max;
    enum strbpf_arg_kind args[5];
    int gpl_only;
    const uint32_t* kernel_prog_types; /* enum bpf_prog_type values whose programs may call it too */
    size_t n_kernel_prog_types;
};

struct strbpf_ctx_field {
    uint32_t offset, size;
    int writable;
};

struct strbpf_prog_type_def {
    size_t sz;              /* sizeof(struct strbpf_prog_type_def) */
    const char* name;
    const char* section;    /* SEC("section") and SEC("section/...") programs get this type */
    uint32_t ctx_size;      /* a run's ctx is exactly this many bytes */
    const struct strbpf_ctx_field* fields;
    size_t n_fields;
    int has_ret_range;
    int64_t ret_min, ret_max;
    const int32_t* helpers; /* the embedder's and the kernel's helper ids its programs may call */
    size_t n_helpers;
    const char* const* kfuncs; /* names of the set's kfuncs its programs may call */
    size_t n_kfuncs;
};

/* The embedder's kfuncs, found by name from the object's `extern ... __ksym` declarations after strbpf's own,
 * checked as the kernel's check_kfunc_args checks a kfunc's BTF prototype (extensions.hpp: KfuncArgKind). */
enum strbpf_kfunc_arg_kind {
    STRBPF_KFUNC_ARG_SCALAR = 0,  /* an integer */
    STRBPF_KFUNC_ARG_CONSTANT,    /* __k: a known constant */
    STRBPF_KFUNC_ARG_MEM,         /* a pointer to mem_size bytes, read and written */
    STRBPF_KFUNC_ARG_MEM_SIZED,   /* a pointer whose size is the next argument */
    STRBPF_KFUNC_ARG_SIZE,        /* __sz: that size, 0 allowed */
    STRBPF_KFUNC_ARG_CONST_SIZE,  /* __szk: that size, a known constant */
    STRBPF_KFUNC_ARG_CONST_STR,   /* __str: a NUL-terminated string in a frozen map */
    STRBPF_KFUNC_ARG_CTX          /* the program's ctx */
};
enum strbpf_kfunc_ret { STRBPF_KFUNC_RET_INTEGER = 0, STRBPF_KFUNC_RET_VOID, STRBPF_KFUNC_RET_MEM };
#define STRBPF_KF_ACQUIRE (1u << 0)  /* returns a reference the program must release */
#define STRBPF_KF_RELEASE (1u << 1)  /* releases the reference of its pointer argument */
#define STRBPF_KF_RET_NULL (1u << 2) /* the returned pointer may be NULL */
#define STRBPF_KF_TRUSTED_ARGS (1u << 4) /* pointer arguments may not be NULL (unless nullable) */
#define STRBPF_KF_RCU (1u << 7)          /* the same rule for its arguments, as the kernel's KF_RCU */

struct strbpf_kfunc_arg {
    enum strbpf_kfunc_arg_kind kind;
    uint32_t mem_size; /* STRBPF_KFUNC_ARG_MEM */
    int nullable;      /* a pointer that may be NULL */
};

struct strbpf_kfunc_def {
    size_t sz;         /* sizeof(struct strbpf_kfunc_def) */
    const char* name;
    strbpf_helper_fn fn;
    const struct strbpf_kfunc_arg* args;
    size_t n_args;     /* at most 5 */
    enum strbpf_kfunc_ret ret;
    uint32_t ret_size; /* STRBPF_KFUNC_RET_MEM: bytes the program may use through R0 */
    uint32_t flags;    /* STRBPF_KF_* */
    const uint32_t* kernel_prog_types; /* enum bpf_prog_type values whose programs may call it */
    size_t n_kernel_prog_types;
};

strbpf_extensions* strbpf_extensions_new(void* user); /* user: what strbpf_call_user answers */
int strbpf_extensions_add_helper(strbpf_extensions* ext, const struct strbpf_helper_def* def);
int strbpf_extensions_add_prog_type(strbpf_extensions* ext, const struct strbpf_prog_type_def* def);
int strbpf_extensions_add_kfunc(strbpf_extensions* ext, const struct strbpf_kfunc_def* def);
void strbpf_extensions_free(strbpf_extensions* ext); /* NULL is fine */
void* strbpf_call_user(const strbpf_call* call);

struct strbpf_open_opts {
    size_t sz;               /* sizeof(struct strbpf_open_opts): later versions may add fields */
    const char* object_name; /* NULL: from the file name ("<memory>" for _open_mem) */
    strbpf_log_fn log;       /* NULL: no messages */
    void* log_user;
    const strbpf_extensions* extensions; /* NULL: none */
};

struct strbpf_load_opts {
    size_t sz;               /* sizeof(struct strbpf_load_opts) */
    enum strbpf_engine engine;
    int log_level;           /* verifier log kept per program: 0, 1, 2 as the kernel's */
};

struct strbpf_run_opts {
    size_t sz;                /* sizeof(struct strbpf_run_opts) */
    const void* ctx_in;
    size_t ctx_size_in;
    void* ctx_out;            /* may be NULL; ctx_size_out is in: capacity, out: bytes the run reported */
    size_t ctx_size_out;
    const void* data_in;
    size_t data_size_in;
    void* data_out;           /* may be NULL; data_size_out as ctx_size_out */
    size_t data_size_out;
    uint32_t repeat;          /* 0 is 1 */
    uint32_t cpu;
    /* out: */
    uint64_t r0;
    uint32_t retval;
    uint64_t duration_ns;     /* average per repetition */
    /* in, after the outputs so that callers built before it keep working (their sz ends at duration_ns: cookie 0) */
    uint64_t cookie; /* the BPF cookie of the link the run models (bpf_get_attach_cookie): fentry, fexit,
                        fmod_ret, kprobe, tracepoint, perf_event; any other type refuses non-zero (-EINVAL) */
};

const char* strbpf_last_error(void);

int strbpf_object_open_file(const char* path, const struct strbpf_open_opts* opts, strbpf_object** out);
int strbpf_object_open_mem(const void* image, size_t size, const struct strbpf_open_opts* opts, strbpf_object** out);
void strbpf_object_close(strbpf_object* obj); /* NULL is fine */
const char* strbpf_object_name(const strbpf_object* obj);

/* A global variable by its BTF name; size must be the variable's. Before load any section, after .data/.bss. */
int strbpf_object_set_global(strbpf_object* obj, const char* name, const void* value, size_t size);
int strbpf_object_get_global(const strbpf_object* obj, const char* name, void* value, size_t size);
int strbpf_object_load(strbpf_object* obj, const struct strbpf_load_opts* opts);
/* Runs the timers the programs armed (bpf_timer_start): all=0 those due now, else every armed one; earliest first,
 * on this thread. A bpf_wq a program started (bpf_wq_start) is due at once: its callback runs in either mode.
 * Returns how many callbacks ran, or a negative errno (-EFAULT: one stopped; see last error). */
int strbpf_object_run_timers(strbpf_object* obj, int all);
long strbpf_object_armed_timers(const strbpf_object* obj); /* armed timers, started bpf_wq now; -EINVAL for NULL */

strbpf_program* strbpf_object_find_program(strbpf_object* obj, const char* name); /* NULL: see last error */
strbpf_map* strbpf_object_find_map(strbpf_object* obj, const char* name);         /* NULL before load too */

const char* strbpf_program_name(const strbpf_program* prog);
int strbpf_program_set_autoload(strbpf_program* prog, int on);
int strbpf_program_set_engine(strbpf_program* prog, enum strbpf_engine engine);
int strbpf_program_accepted(const strbpf_program* prog); /* 1 accepted, 0 rejected or not loaded */
const char* strbpf_program_reason(const strbpf_program* prog); /* the verifier's one-line reason, or "" */
const char* strbpf_program_log(const strbpf_program* prog);    /* the verifier log at the load's log_level */
/* BPF_PROG_TEST_RUN-shaped run; tail calls on every engine. Reuses this thread's buffers (no allocation once they
 * have grown) and always reports duration_ns (two clock reads), but for tracing (fentry, fexit, fmod_ret: run on the
 * kernel's bpf_fentry_test* / bpf_modify_return_test* functions, retval the test run's) and struct_ops (bpf_dummy_ops:
 * ctx_in the member's u64 arguments, the first a pointer to the caller's state or 0) runs, which report none, as the
 * kernel's. */
int strbpf_program_run(const strbpf_program* prog, struct strbpf_run_opts* opts);

/* Per-thread fast path for programs whose ctx is the bytes given (syscall, raw_tp): no allocation per call. */
int strbpf_runner_new(const strbpf_program* prog, uint32_t cpu, strbpf_runner** out);
int strbpf_runner_run(strbpf_runner* runner, void* ctx, size_t ctx_size, uint64_t* r0);
void strbpf_runner_free(strbpf_runner* runner);

uint32_t strbpf_map_key_size(const strbpf_map* map);
uint32_t strbpf_map_value_size(const strbpf_map* map); /* the syscall view: x possible CPUs for per-CPU maps */
int strbpf_map_lookup(const strbpf_map* map, const void* key, size_t key_size, void* value, size_t value_size);
/* BPF_MAP_LOOKUP_ELEM with its flags (libbpf's bpf_map_lookup_elem_flags): BPF_F_LOCK (4) copies the value under its
 * bpf_spin_lock; -EINVAL for other flags and for BPF_F_LOCK on a value without one. */
int strbpf_map_lookup_flags(const strbpf_map* map, const void* key, size_t key_size, void* value, size_t value_size,
                            uint64_t flags);
int strbpf_map_update(strbpf_map* map, const void* key, size_t key_size, const void* value, size_t value_size,
                      uint64_t flags);
int strbpf_map_delete(strbpf_map* map, const void* key, size_t key_size);
/* key NULL: the first key. 0 with *next filled, -ENOENT after the last key. */
int strbpf_map_next_key(const strbpf_map* map, const void* key, void* next, size_t key_size);
/* Ring buffers: fn per committed record, in order; a negative return stops and is returned. Else the count. */
typedef int (*strbpf_ringbuf_fn)(const void* data, size_t size, void* user);
long strbpf_map_ringbuf_consume(strbpf_map* map, strbpf_ringbuf_fn fn, void* user);

/* BPF_MAP_LOOKUP_AND_DELETE_ELEM (hash maps; -ENOTSUPP, -524, for others). flags: 0, or BPF_F_LOCK to copy a value
 * with a bpf_spin_lock under it (-EINVAL for a value without one). */
int strbpf_map_lookup_and_delete(strbpf_map* map, const void* key, size_t key_size, void* value, size_t value_size,
                                 uint64_t flags);

/* Batch operations as libbpf's bpf_map_*_batch and the bpf() syscall's: *count is in the elements keys and values
 * hold (count x key size, count x strbpf_map_value_size), out the elements done. elem_flags: 0 or BPF_F_LOCK (values
 * with a bpf_spin_lock only, else -EINVAL): lookups copy each value under its lock, updates write under it. in_batch NULL starts a walk;
 * out_batch (strbpf_map_batch_token_size bytes: a u32 bucket index for hash maps, a key otherwise) is the next
 * call's in_batch. -ENOENT: the end was reached (*count may be > 0); -ENOSPC: a hash bucket larger than *count. */
struct strbpf_map_batch_opts {
    size_t sz; /* sizeof(struct strbpf_map_batch_opts) */
    uint64_t elem_flags;
    uint64_t flags;
};
uint32_t strbpf_map_batch_token_size(const strbpf_map* map);
int strbpf_map_lookup_batch(const strbpf_map* map, const void* in_batch, void* out_batch, void* keys, void* values,
                            uint32_t* count, const struct strbpf_map_batch_opts* opts);
int strbpf_map_lookup_and_delete_batch(strbpf_map* map, const void* in_batch, void* out_batch, void* keys,
                                       void* values, uint32_t* count, const struct strbpf_map_batch_opts* opts);
int strbpf_map_update_batch(strbpf_map* map, const void* keys, const void* values, uint32_t* count,
                            const struct strbpf_map_batch_opts* opts);
int strbpf_map_delete_batch(strbpf_map* map, const void* keys, uint32_t* count,
                            const struct strbpf_map_batch_opts* opts);

/* Ring buffer consumers as libbpf's ring_buffer__*: one epoll fd over any number of ring buffer maps, readable when
 * a program's submit wakes a ring (BPF_RB_NO_WAKEUP / BPF_RB_FORCE_WAKEUP as the kernel's). poll and consume return
 * the records consumed or a negative errno (a callback's negative return). */
typedef struct strbpf_ring_buffer strbpf_ring_buffer;
strbpf_ring_buffer* strbpf_ring_buffer_new(strbpf_map* map, strbpf_ringbuf_fn fn, void* user); /* NULL: error */
int strbpf_ring_buffer_add(strbpf_ring_buffer* rb, strbpf_map* map, strbpf_ringbuf_fn fn, void* user);
int strbpf_ring_buffer_poll(strbpf_ring_buffer* rb, int timeout_ms); /* -1: no limit */
int strbpf_ring_buffer_consume(strbpf_ring_buffer* rb);
int strbpf_ring_buffer_epoll_fd(const strbpf_ring_buffer* rb);
void strbpf_ring_buffer_free(strbpf_ring_buffer* rb); /* NULL is fine */

/* User ring buffer producers as libbpf's user_ring_buffer__*: samples a program's bpf_user_ringbuf_drain takes in
 * order. reserve and reserve_blocking return the sample or NULL with errno (and strbpf_last_error) set: E2BIG (too
 * large for the ring), ENOSPC (no room; after the timeout for reserve_blocking, whose timeout_ms -1 waits without
 * limit), EINVAL; submit and discard return 0 or -EINVAL (not a reserved sample). */
typedef struct strbpf_user_ring_buffer strbpf_user_ring_buffer;
strbpf_user_ring_buffer* strbpf_user_ring_buffer_new(strbpf_map* map); /* NULL: error */
void* strbpf_user_ring_buffer_reserve(strbpf_user_ring_buffer* rb, uint32_t size);
void* strbpf_user_ring_buffer_reserve_blocking(strbpf_user_ring_buffer* rb, uint32_t size, int timeout_ms);
int strbpf_user_ring_buffer_submit(strbpf_user_ring_buffer* rb, void* sample);
int strbpf_user_ring_buffer_discard(strbpf_user_ring_buffer* rb, void* sample);
void strbpf_user_ring_buffer_free(strbpf_user_ring_buffer* rb); /* NULL is fine */

/* Perf buffer consumers as libbpf's perf_buffer__*: a reader on the slot of every possible CPU of a perf event
 * array (up to its max_entries), page_cnt pages each (a power of two); sample gets each record bpf_perf_event_output
 * stored, in order per CPU, lost the records a full reader dropped since the last report. poll returns the
 * readers consumed (as libbpf's), consume and consume_buffer the records; all a negative errno on failure. */
typedef struct strbpf_perf_buffer strbpf_perf_buffer;
typedef void (*strbpf_perf_sample_fn)(void* user, int cpu, const void* data, uint32_t size);
typedef void (*strbpf_perf_lost_fn)(void* user, int cpu, uint64_t count);
strbpf_perf_buffer* strbpf_perf_buffer_new(strbpf_map* map, size_t page_cnt, strbpf_perf_sample_fn sample,
                                           strbpf_perf_lost_fn lost, void* user); /* lost may be NULL */
int strbpf_perf_buffer_poll(strbpf_perf_buffer* pb, int timeout_ms); /* -1: no limit */
int strbpf_perf_buffer_consume(strbpf_perf_buffer* pb);
int strbpf_perf_buffer_consume_buffer(strbpf_perf_buffer* pb, size_t index);
size_t strbpf_perf_buffer_buffer_cnt(const strbpf_perf_buffer* pb);
int strbpf_perf_buffer_buffer_fd(const strbpf_perf_buffer* pb, size_t index); /* its eventfd */
int strbpf_perf_buffer_epoll_fd(const strbpf_perf_buffer* pb);
void strbpf_perf_buffer_free(strbpf_perf_buffer* pb); /* NULL is fine */

#ifdef __cplusplus
}
#endif

#endif /* STRBPF_STRBPF_H */
