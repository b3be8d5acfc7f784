// SPDX-License-Identifier: BSD-2-Clause
// strbpf's embedding API: the lifecycle libbpf users know, over a BPF ELF object as clang -target bpf builds it.
//   open (a file or bytes in memory) -> set globals by name (.rodata, .data, .bss; through the object's BTF) and
//   choose programs/engines -> load (maps created, .rodata frozen, every program verified, then compiled for its
//   engine) -> run programs, use maps -> destroy the Object.
// A loaded Object may run programs on several threads at once; its maps are shared between those runs.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "strbpf/extensions.hpp"
#include "strbpf/maps.hpp"
#include "strbpf/program.hpp"
#include "strbpf/result.hpp"
#include "strbpf/ring_buffer.hpp"

namespace strbpf {

enum class LogLevel { warn, info, debug };

struct OpenOptions {
    std::string object_name; // default: the file name without ".bpf.o"/".o"; "<memory>" for open_memory
    // Receives load's messages: a rejection (warn), each program's verdict (info) and verifier log (debug).
    std::function<void(LogLevel, const std::string&)> log;
    // The Kconfig file (plain or gzip) `__kconfig` externs read; empty: /boot/config-$(uname -r), /proc/config.gz.
    std::string kconfig_path;
    // The BTF (raw or an ELF's .BTF) CO-RE relocations are resolved against; empty: /sys/kernel/btf/vmlinux.
    std::string btf_path;
    // The embedder's helpers and program types (extensions.hpp): frozen by open, kept by the object. Programs in
    // an embedder type's section get that type (ProgramRef::type() is then a value from 40 up).
    std::optional<Extensions> extensions;
};

struct LoadOptions {
    Engine engine = Engine::jit; // for every program without its own ProgramRef::set_engine
    int log_level = 0;           // the verifier log kept per program: 0 none, 1 the kernel's level 1, 2 states
};

// What a global variable is, from the object's BTF.
struct GlobalInfo {
    std::string section; // ".rodata", ".data", ".bss", ".rodata.foo", ...
    uint32_t offset = 0;
    uint32_t size = 0;
    bool integer = false; // int, enum or pointer-free scalar (after typedefs and qualifiers)
    bool floating = false;
};

class Object {
  public:
    // Reads and relocates the object; nothing is created until load(). Errors name the file and the cause.
    static Result<Object> open(const std::string& path, const OpenOptions& opts = {});
    // The same from an ELF image in memory (copied: the bytes need not outlive the call).
    static Result<Object> open_memory(std::span<const uint8_t> image, const OpenOptions& opts = {});
    Object(Object&&) noexcept;
    Object& operator=(Object&&) noexcept;
    ~Object();

    const std::string& name() const;
    bool loaded() const;

    // Global variables by name through BTF. Before load() any section may be set (a `const volatile` .rodata
    // variable is how a skeleton configures a program); after load() .data and .bss still may, .rodata is frozen
    // (-EBUSY). Errors: no such variable (-ENOENT), a size other than the variable's (-EINVAL).
    Result<GlobalInfo> global_info(const std::string& var) const;
    Status set_global(const std::string& var, std::span<const uint8_t> bytes);
    Result<std::vector<uint8_t>> global(const std::string& var) const;
    // Typed: also refuses an integer for a non-integer variable and a floating value for a non-float one.
    template <class T>
        requires std::is_trivially_copyable_v<T>
    Status set_global(const std::string& var, const T& value) {
        if (auto st = check_global_kind(var, std::is_integral_v<T> || std::is_enum_v<T>,
                                        std::is_floating_point_v<T>);
            !st)
            return st;
        return set_global(var, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&value), sizeof(T)));
    }

    // Creates the maps (globals applied, .rodata frozen), links and verifies every autoload program, prepares it
    // for its engine. Like libbpf, a rejected program fails the whole load (on jit and interp), with the
    // program's name and the kernel's one-line reason; the object then stays unloaded (fix, or set_autoload
    // false, and load again). Errors: -EACCES rejected, -EINVAL link or map errors, -EBUSY loaded already.
    Status load(const LoadOptions& opts = {});

    std::vector<std::string> map_names() const;     // after load()
    std::vector<std::string> program_names() const; // any time
    Result<MapRef> map(const std::string& name) const;
    Result<ProgramRef> program(const std::string& name) const;

    // Timers the programs armed with bpf_timer_start. The kernel fires each from an hrtimer in softirq context;
    // strbpf runs them when this is called: on the calling thread, earliest expiry first, each callback on the
    // engine of the program that set it, with (map, key, value). all=false runs those whose expiry has passed on
    // their clock (bpf_ktime_get_ns's for CLOCK_MONOTONIC); all=true every armed timer, as if the time until the
    // latest had passed. A timer a callback arms again waits for the next call. The workqueues the programs started
    // with bpf_wq_start (the kernel runs each from a kworker) run here too: a started bpf_wq is due at once, in
    // either mode, ordered by when it was started; one a callback starts again waits for the next call. Returns how
    // many callbacks ran. Errors: -EINVAL before load(); -EFAULT when a callback stopped (the others still ran).
    Result<size_t> run_timers(bool all = false) const;
    size_t armed_timers() const; // how many timers are armed and bpf_wq started now; 0 before load()

    struct Impl; // opaque: defined inside libstrbpf
    explicit Object(std::unique_ptr<Impl> impl);

  private:
    Status check_global_kind(const std::string& var, bool integer, bool floating) const;
    std::unique_ptr<Impl> impl_;
};

} // namespace strbpf
