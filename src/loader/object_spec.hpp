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

// Instruction encoding after loading (the kernel's pseudo forms, with indexes instead of fds):
// - ld_imm64 src=BPF_PSEUDO_MAP_FD: imm = index into ObjectSpec::maps;
// - ld_imm64 src=BPF_PSEUDO_MAP_VALUE: imm = map index, second slot's imm = offset into the value;
// - ld_imm64 src=BPF_PSEUDO_FUNC: imm = relative insn offset of the callback (target = pc + imm + 1);
// - call src=0: imm = helper id; call src=BPF_PSEUDO_CALL: imm = relative offset (target = pc + imm + 1);
// - call src=BPF_PSEUDO_KFUNC_CALL: imm = index into ObjectSpec::kfuncs (resolved by name by the runtime).
struct ProgramSpec {
    std::string name;    // the function's symbol name
    std::string section; // full SEC() name, without a leading '?'
    ProgType type = ProgType::unspec;
    bool autoload = true; // false for SEC("?...")
    std::vector<isa::Insn> insns; // main function, then every subprogram it reaches
    std::vector<FuncInfo> funcs;  // main first
    std::vector<LineInfo> lines;  // sorted by insn
    // ld_imm64 with src BPF_PSEUDO_MAP_FD/BPF_PSEUDO_MAP_VALUE written in the object without a relocation: their
    // imm is a file descriptor the program made up, not a map index (the verifier refuses them as the kernel does).
    std::vector<uint32_t> raw_map_fds;
};

struct ObjectSpec {
    std::string path;
    std::string license;
    std::vector<MapSpec> maps;
    std::vector<std::string> kfuncs; // extern __ksym function names referenced by kfunc calls
    std::vector<ProgramSpec> programs; // ELF order: by section index, then by offset
    std::shared_ptr<struct btf> btf;   // the object's BTF (libbpf), null when absent

    const ProgramSpec* find_program(const std::string& name) const;
    int find_map(const std::string& name) const; // -1 when absent
};

} // namespace strbpf::loader
