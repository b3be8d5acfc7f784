// SPDX-License-Identifier: BSD-2-Clause
// The live kernel as an engine (exec stage): loads one program of a BPF object with libbpf and runs it with
// BPF_PROG_TEST_RUN, reporting what the kernel said in the same RunReport the interpreter and JIT fill.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "exec/engine.hpp"
#include "runtime/instance.hpp"
#include "strbpf/result.hpp"

struct bpf_object;
struct bpf_program;
struct bpf_map;
struct bpf_link;

namespace strbpf::exec::kernel {

// Ok when bpf() can load and test-run programs here; otherwise an Error saying why, e.g.
// "the kernel engine needs bpf(): BPF_PROG_LOAD failed: Operation not permitted (run as root / CAP_BPF)".
// Probes once (a 2-insn socket filter, loaded and test-run) and caches the answer.
Status available();

// "6.18" for Linux 6.18.44; what the unsupported-kfunc message names.
const std::string& kernel_release();

// True when the running kernel's BTF (vmlinux, then modules) has a FUNC of that name: kfuncs a program calls
// must be there, or the program cannot load on this kernel.
bool kernel_has_function(const std::string& name);

// Names of OBJ's programs in ELF order, via libbpf (no kernel needed); empty when libbpf cannot open OBJ, and then
// *error (when given) holds libbpf's own reason.
std::vector<std::string> program_names(const std::string& obj_path, std::string* error = nullptr);

// libbpf's own messages go nowhere unless verbose (then to stderr); the kernel engine always captures them.
void set_verbose(bool verbose);

// What a run reports beyond RunReport.
struct RunDetails {
    std::string log;          // the verifier log (of a failed load: at least level 1), and libbpf's messages
    // The program calls a kfunc this kernel lacks, the installed libbpf does not know its section, or the kernel
    // refuses to create its arena (BPF_MAP_CREATE: EPERM or EOPNOTSUPP), or loads no programs that attach through a
    // BPF trampoline: SKIP, not FAIL.
    bool unsupported = false;
};

// One-line reason from a verifier log: the kernel's last meaningful line before "processed N insns".
// Empty when the log has none.
std::string verifier_reason(const std::string& log);

// How a test loads a program, as the kernel's test_loader prepares it (prepare_case): flags ORed into the
// program's own, the log level (0: libbpf loads without a log and retries at level 1 on failure), the auxiliary
// programs autoloaded with it, a custom BTF for CO-RE, and the unprivileged mode's map choice.
struct LoadOptions {
    uint32_t prog_flags = 0;
    int log_level = 0;
    std::vector<std::string> also_load; // other programs of the object loaded with PROG (__auxiliary)
    std::string btf_custom_path;        // __btf_path
    bool unpriv = false;                // create only the maps an unprivileged loader may (is_unpriv_capable_map)
};

// Opens and loads OBJ's program PROG once, then runs it any number of times.
// Global data: `globals` patches the .data/.rodata/.bss sections before load (matched by section name, as libbpf
// names its internal maps "<obj>.data"); a later run() with different req.globals rewrites .data/.bss in place
// and reloads the object when .rodata changes (it is frozen at load). Patches are always applied over the ELF's
// initial bytes, never over earlier patches. Writes the program itself makes to .data/.bss persist across runs
// until the next rewrite.
class KernelObject {
  public:
    // Never null. loaded() false: error()/details() say why (unsupported() when a kfunc is missing).
    static std::unique_ptr<KernelObject> load(const std::string& obj_path, const std::string& prog,
                                              const std::vector<runtime::GlobalPatch>& globals = {},
                                              const LoadOptions& opts = {});
    ~KernelObject();
    KernelObject(const KernelObject&) = delete;
    KernelObject& operator=(const KernelObject&) = delete;

    bool loaded() const { return prog_fd_ >= 0; }
    bool unsupported() const { return details_.unsupported; }
    const std::string& error() const { return error_; }
    const RunDetails& details() const { return details_; }
    int prog_fd() const { return prog_fd_; }
    uint32_t prog_type() const { return prog_type_; }
    // The fd of the loaded object's map NAME (as libbpf names it: a BTF map's own name), or -1.
    int map_fd(const std::string& name) const;

    // Runs the loaded program once (syscall programs: req.repeat times from user space). Never throws.
    RunReport run(const RunRequest& req);

  private:
    struct GlobalMap {                // one internal (global-data) map
        std::string name;             // libbpf's name ("kernel_g.rodata", ".data.foo")
        std::vector<uint8_t> initial; // the ELF's bytes
        std::vector<uint8_t> current; // what the loaded map was last given
        bool frozen = false;          // .rodata*: read-only to programs, frozen at load
        bpf_map* map = nullptr;
    };
    KernelObject() = default;
    void close();
    bool open_and_load(const std::vector<runtime::GlobalPatch>& globals);
    Status apply_globals_before_load(const std::vector<runtime::GlobalPatch>& globals);
    Status update_globals(const std::vector<runtime::GlobalPatch>& globals);
    Result<std::vector<std::vector<uint8_t>>> global_values(const std::vector<runtime::GlobalPatch>& globals) const;
    void run_syscall(const RunRequest& req, RunReport* report);
    void run_packet(const RunRequest& req, bool is_packet, RunReport* report);
    void run_tracing(const RunRequest& req, RunReport* report);
    bool trampoline_program() const;
    std::string incompatible_weak_kfunc(const std::string& libbpf_text) const;
    void record_run_error(int err, RunReport* report);
    Status create_arenas();

    std::string path_;
    std::string prog_name_;
    LoadOptions opts_;
    std::vector<uint8_t> image_; // the ELF, with missing kfunc externs made weak (libbpf reads it in place)
    std::vector<std::string> weak_kfuncs_; // the object's own __weak kfunc externs
    bpf_object* obj_ = nullptr;
    bpf_program* prog_ = nullptr;
    bpf_link* link_ = nullptr; // fentry/fexit/fmod_ret: attached before its first test run, as test_progs does
    uint64_t link_cookie_ = 0; // the cookie link_ was made with (a run asking another re-attaches)
    int prog_fd_ = -1;
    uint32_t prog_type_ = 0;
    std::vector<GlobalMap> maps_;
    std::vector<runtime::GlobalPatch> applied_; // the globals the object currently holds
    // Arena maps, created and mapped here as libbpf 1.4+ does (libbpf 1.1 knows neither): the kernel fixes an
    // arena's user address at its first mmap, and refuses a program whose arena has none.
    std::vector<std::pair<void*, size_t>> arena_maps_;
    std::string error_;
    RunDetails details_;
};

// Loads PROG alone (other programs' autoload off), applies req.globals, runs it once with req, closes it.
// Load failures: loaded=false and error is the kernel's one-line reason; details (optional) get the full log and
// whether the failure is a missing kfunc (unsupported, error "kfunc X is not available in this kernel (Linux 6.18)").
RunReport run(const std::string& obj_path, const std::string& prog, const RunRequest& req,
              RunDetails* details = nullptr);

// One test_loader subtest on the kernel: load PROG with OPTS; run it once with REQ only when EXECUTE (a __retval
// was given). The loaded/ran/error/retval of the report and DETAILS say what happened.
RunReport run_test(const std::string& obj_path, const std::string& prog, const RunRequest& req,
                   const LoadOptions& opts, bool execute, RunDetails* details);

// The same in test_loader's unprivileged mode: in a child process whose effective capabilities lack
// CAP_SYS_ADMIN, CAP_NET_ADMIN, CAP_PERFMON and CAP_BPF (but for KEEP_CAPS bits, __caps_unpriv); the run itself
// happens with the capabilities restored, as test_loader does. Call only when unprivileged_bpf_disabled() is 0.
RunReport run_test_unprivileged(const std::string& obj_path, const std::string& prog, const RunRequest& req,
                                const LoadOptions& opts, bool execute, uint64_t keep_caps, RunDetails* details);

// /proc/sys/kernel/unprivileged_bpf_disabled (-1 when unreadable, which test_loader treats as disabled).
int unprivileged_bpf_disabled();

// Whether the kernel JITs programs (/proc/sys/net/core/bpf_jit_enable non-zero), for __load_if_JITed.
bool kernel_jit_enabled();

} // namespace strbpf::exec::kernel
