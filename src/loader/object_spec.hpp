// SPDX-License-Identifier: BSD-2-Clause
// What the loader makes of a BPF ELF object (loader stage): maps, programs with their subprograms appended and
// relocated, license, BTF. Engines consume this; nothing here points into the ELF file.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "isa/insn.hpp"

struct btf;

namespace strbpf::loader {

// Kernel program types (enum bpf_prog_type of Linux 6.18, every value).
enum class ProgType : uint32_t {
    unspec = 0,
    socket_filter = 1,
    kprobe = 2,
    sched_cls = 3,
    sched_act = 4,
    tracepoint = 5,
    xdp = 6,
    perf_event = 7,
    cgroup_skb = 8,
    cgroup_sock = 9,
    lwt_in = 10,
    lwt_out = 11,
    lwt_xmit = 12,
    sock_ops = 13,
    sk_skb = 14,
    cgroup_device = 15,
    sk_msg = 16,
    raw_tracepoint = 17,
    cgroup_sock_addr = 18,
    lwt_seg6local = 19,
    lirc_mode2 = 20,
    sk_reuseport = 21,
    flow_dissector = 22,
    cgroup_sysctl = 23,
    raw_tracepoint_writable = 24,
    cgroup_sockopt = 25,
    tracing = 26,
    struct_ops = 27,
    ext = 28,
    lsm = 29,
    sk_lookup = 30,
    syscall = 31,
    netfilter = 32,
};
const char* prog_type_name(ProgType t);

// Attach types (enum bpf_attach_type of Linux 6.18, every value, plus libbpf 1.7's trace_fsession after them).
// A program's expected attach type is 0 (cgroup_inet_ingress) when its section names none, as in libbpf.
enum class AttachType : uint32_t {
    cgroup_inet_ingress = 0,
    cgroup_inet_egress = 1,
    cgroup_inet_sock_create = 2,
    cgroup_sock_ops = 3,
    sk_skb_stream_parser = 4,
    sk_skb_stream_verdict = 5,
    cgroup_device = 6,
    sk_msg_verdict = 7,
    cgroup_inet4_bind = 8,
    cgroup_inet6_bind = 9,
    cgroup_inet4_connect = 10,
    cgroup_inet6_connect = 11,
    cgroup_inet4_post_bind = 12,
    cgroup_inet6_post_bind = 13,
    cgroup_udp4_sendmsg = 14,
    cgroup_udp6_sendmsg = 15,
    lirc_mode2 = 16,
    flow_dissector = 17,
    cgroup_sysctl = 18,
    cgroup_udp4_recvmsg = 19,
    cgroup_udp6_recvmsg = 20,
    cgroup_getsockopt = 21,
    cgroup_setsockopt = 22,
    trace_raw_tp = 23,
    trace_fentry = 24,
    trace_fexit = 25,
    modify_return = 26,
    lsm_mac = 27,
    trace_iter = 28,
    cgroup_inet4_getpeername = 29,
    cgroup_inet6_getpeername = 30,
    cgroup_inet4_getsockname = 31,
    cgroup_inet6_getsockname = 32,
    xdp_devmap = 33,
    cgroup_inet_sock_release = 34,
    xdp_cpumap = 35,
    sk_lookup = 36,
    xdp = 37,
    sk_skb_verdict = 38,
    sk_reuseport_select = 39,
    sk_reuseport_select_or_migrate = 40,
    perf_event = 41,
    trace_kprobe_multi = 42,
    lsm_cgroup = 43,
    struct_ops = 44,
    netfilter = 45,
    tcx_ingress = 46,
    tcx_egress = 47,
    trace_uprobe_multi = 48,
    cgroup_unix_connect = 49,
    cgroup_unix_sendmsg = 50,
    cgroup_unix_recvmsg = 51,
    cgroup_unix_getpeername = 52,
    cgroup_unix_getsockname = 53,
    netkit_primary = 54,
    netkit_peer = 55,
    trace_kprobe_session = 56,
    trace_uprobe_session = 57,
    trace_fsession = 58,
};

// Map types (enum bpf_map_type of Linux 6.18, every value; map_types.cpp says what each means to strbpf).
enum MapType : uint32_t {
    kMapUnspec = 0,
    kMapHash = 1,
    kMapArray = 2,
    kMapProgArray = 3,
    kMapPerfEventArray = 4,
    kMapPercpuHash = 5,
    kMapPercpuArray = 6,
    kMapStackTrace = 7,
    kMapCgroupArray = 8,
    kMapLruHash = 9,
    kMapLruPercpuHash = 10,
    kMapLpmTrie = 11,
    kMapArrayOfMaps = 12,
    kMapHashOfMaps = 13,
    kMapDevmap = 14,
    kMapSockmap = 15,
    kMapCpumap = 16,
    kMapXskmap = 17,
    kMapSockhash = 18,
    kMapCgroupStorage = 19,
    kMapReuseportSockarray = 20,
    kMapPercpuCgroupStorage = 21,
    kMapQueue = 22,
    kMapStack = 23,
    kMapSkStorage = 24,
    kMapDevmapHash = 25,
    kMapStructOps = 26,
    kMapRingbuf = 27,
    kMapInodeStorage = 28,
    kMapTaskStorage = 29,
    kMapBloomFilter = 30,
    kMapUserRingbuf = 31,
    kMapCgrpStorage = 32,
    kMapArena = 33,
    kMapTypeCount = 34,
};
// "hash", "prog_array", ... (libbpf's names); "unknown" past the last type.
const char* map_type_name(uint32_t type);
// The kernel's bpf_map_meta_equal-less answer: array_of_maps / hash_of_maps.
constexpr bool is_map_in_map(uint32_t type) { return type == kMapArrayOfMaps || type == kMapHashOfMaps; }

inline constexpr uint32_t kMapFlagNumaNode = 1u << 2;   // BPF_F_NUMA_NODE
inline constexpr uint32_t kMapFlagRdonly = 1u << 3;     // BPF_F_RDONLY (the syscall side's read-only)
inline constexpr uint32_t kMapFlagWronly = 1u << 4;     // BPF_F_WRONLY
inline constexpr uint32_t kMapFlagRdonlyProg = 1u << 7; // BPF_F_RDONLY_PROG
inline constexpr uint32_t kMapFlagMmapable = 1u << 10;  // BPF_F_MMAPABLE

struct MapSpec {
    std::string name;    // BTF map name, or the global-data section name (".rodata", ".data.foo", ...)
    std::string section; // ".maps" or the global-data section
    uint32_t type = 0;
    uint32_t key_size = 0;
    uint32_t value_size = 0;
    uint32_t max_entries = 0;
    uint32_t map_flags = 0;
    uint64_t map_extra = 0; // bloom_filter: the number of hash functions; arena: the user address
    bool global_data = false; // one-entry array made from .data/.bss/.rodata*
    bool frozen = false;      // .rodata*: frozen after load, read-only to programs (BPF_F_RDONLY_PROG)
    std::vector<uint8_t> initial; // global data: value_size bytes (zeros for .bss)
    // `values` initialisers (libbpf's init_slots): prog_array slots name programs, map-in-map slots name maps of
    // .maps; the runtime fills them when the object is instantiated.
    struct Slot {
        uint32_t index = 0;
        std::string target;
    };
    std::vector<Slot> slots;
    // array_of_maps / hash_of_maps: the inner map template (`__array(values, struct {...})`, named "<map>.inner"):
    // what every inner map must match and what the verifier knows of a map a lookup returns.
    std::shared_ptr<const MapSpec> inner;
};

struct LineInfo {
    uint32_t insn = 0; // instruction index within ProgramSpec::insns
    std::string file;
    std::string source; // the source line's text
    uint32_t line = 0;
    uint32_t column = 0;
};

struct FuncInfo {
    uint32_t insn = 0; // first instruction within ProgramSpec::insns
    std::string name;
    uint32_t type_id = 0; // BTF FUNC id from .BTF.ext func_info (in ObjectSpec::btf); 0 when absent
};

// An extern symbol of the object (libbpf's extern_desc): a `__kconfig` variable, which lives in the `.kconfig` map,
// or a `__ksym` function (a kfunc) or variable. ObjectSpec::externs keeps libbpf's order (kconfig first by
// descending alignment, then size, then name; then ksyms by name), so an index is libbpf's extern index: a call
// of a `__weak` kfunc the target lacks is poisoned as helper id 2002000000 + index, as libbpf poisons it.
struct ExternSpec {
    enum class Kind : uint8_t { kconfig, kfunc, ksym_var };
    std::string name;
    Kind kind = Kind::kconfig;
    bool weak = false;
    uint32_t btf_id = 0;      // the object's BTF VAR or FUNC
    uint32_t type_id = 0;     // kconfig / ksym_var: the variable's type after modifiers (0: a typeless ksym)
    uint32_t kconfig_off = 0; // kconfig: offset in the .kconfig map's value
    uint32_t size = 0;        // kconfig: size of the value
    // A `__weak` kfunc whose prototype the target kernel's BTF has but with an incompatible prototype: libbpf (1.3
    // and later) leaves it unresolved, as if the kernel lacked it (its calls poisoned, its address 0).
    bool incompatible = false;
    // Non-empty when a program referencing this extern cannot be loaded (libbpf's words: "extern 'X' (strong):
    // not resolved", a kconfig value of the wrong type, ...); only the programs that use it fail.
    std::string error;
};

// Instruction encoding after loading (the kernel's pseudo forms, with indexes instead of fds):
// - ld_imm64 src=BPF_PSEUDO_MAP_FD: imm = index into ObjectSpec::maps;
// - ld_imm64 src=BPF_PSEUDO_MAP_VALUE: imm = map index, second slot's imm = offset into the value;
// - ld_imm64 src=BPF_PSEUDO_FUNC: imm = relative insn offset of the callback (target = pc + imm + 1);
// - call src=0: imm = helper id; call src=BPF_PSEUDO_CALL: imm = relative offset (target = pc + imm + 1);
// - call src=BPF_PSEUDO_KFUNC_CALL: imm = index into ObjectSpec::kfuncs (resolved by name by the runtime);
// - ld_imm64 src=BPF_PSEUDO_BTF_ID: the address of a kfunc (bpf_ksym_exists), imm = index into ObjectSpec::kfuncs;
// - a `__kconfig` extern is a BPF_PSEUDO_MAP_VALUE of the `.kconfig` map at its offset.
struct ProgramSpec {
    std::string name;    // the function's symbol name
    std::string section; // full SEC() name, without a leading '?'
    ProgType type = ProgType::unspec;
    AttachType expected_attach_type = AttachType::cgroup_inet_ingress; // libbpf's, from the section
    bool sleepable = false;  // BPF_F_SLEEPABLE: a ".s" section (and "syscall")
    bool xdp_frags = false;  // BPF_F_XDP_HAS_FRAGS: an "xdp.frags" section
    bool autoload = true;    // false for SEC("?...")
    // Non-empty when this program cannot be used (a section libbpf does not know, a relocation strbpf cannot
    // apply): the reason, in the words libbpf or the loader uses. The other programs of the object still load;
    // insns may be empty.
    std::string load_error;
    int load_error_code = 0; // the errno-style code that goes with load_error (-EINVAL, ...)
    std::vector<isa::Insn> insns; // main function, then every subprogram it reaches
    std::vector<FuncInfo> funcs;  // main first
    std::vector<LineInfo> lines;  // sorted by insn
    // ld_imm64 with src BPF_PSEUDO_MAP_FD/BPF_PSEUDO_MAP_VALUE written in the object without a relocation: their
    // imm is a file descriptor the program made up, not a map index (the verifier refuses them as the kernel does).
    std::vector<uint32_t> raw_map_fds;
    // Instructions a CO-RE relocation the target cannot satisfy was poisoned at (a call of helper 195896080, as
    // libbpf poisons them), with libbpf's description of the relocation; the verifier refuses such a call with
    // "failed to resolve CO-RE relocation <spec>" only where a path reaches it.
    struct CorePoison {
        uint32_t insn = 0;
        std::string spec;
    };
    std::vector<CorePoison> core_poisons;
};

struct ObjectSpec {
    std::string path;
    std::string license;
    std::vector<MapSpec> maps;
    std::vector<std::string> kfuncs; // extern __ksym function names referenced by kfunc calls
    std::vector<int32_t> kfunc_extern; // per kfuncs[i]: its index in externs, -1 without BTF (a strong kfunc)
    std::vector<ExternSpec> externs;   // libbpf's order (see ExternSpec)
    std::vector<ProgramSpec> programs; // ELF order: by section index, then by offset
    std::shared_ptr<struct btf> btf;   // the object's BTF (libbpf), null when absent

    const ProgramSpec* find_program(const std::string& name) const;
    int find_map(const std::string& name) const; // -1 when absent
};

} // namespace strbpf::loader
