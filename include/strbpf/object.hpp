// strbpf's embedding API: open a BPF ELF object (what clang -target bpf builds for libbpf), find its maps and
// programs, run a program on the interpreter the way BPF_PROG_TEST_RUN runs it. An Object may run programs on
// several threads at once; its maps are shared between those runs.
#pragma once
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "strbpf/maps.hpp"
#include "strbpf/result.hpp"

namespace strbpf {

struct RunOptions {
    std::vector<uint8_t> ctx;  // ctx_in: syscall ctx bytes, raw_tp u64 arguments, a struct __sk_buff, ...
    std::vector<uint8_t> data; // data_in: the packet of xdp/tc/socket programs
    uint32_t cpu = 0;          // the CPU the program runs as: per-CPU map values, bpf_get_smp_processor_id
    std::FILE* trace = stderr; // where bpf_trace_printk writes
};

struct RunResult {
    uint64_t r0 = 0;
    uint32_t retval = 0; // low 32 bits of r0, as BPF_PROG_TEST_RUN reports it
    std::vector<uint8_t> data_out;
    std::vector<uint8_t> ctx_out;
};

class ProgramRef {
  public:
    const std::string& name() const;
    const std::string& section() const;
    // Runs once on the interpreter. Errors: the program could not be linked, the test run's context is not what
    // the kernel accepts, or the run stopped (invalid access, ...), with a message naming the pc.
    Result<RunResult> run(const RunOptions& opts = {}) const;

  private:
    friend class Object;
    ProgramRef(const void* obj, const void* prog) : obj_(obj), prog_(prog) {}
    const void* obj_;  // runtime::ObjectInstance
    const void* prog_; // runtime::LinkedProgram
};

class Object {
  public:
    // Loads the ELF file, creates its maps and links its programs. Errors name the file and the cause.
    static Result<Object> open(const std::string& path);
    Object(Object&&) noexcept;
    Object& operator=(Object&&) noexcept;
    ~Object();

    std::vector<std::string> map_names() const;
    std::vector<std::string> program_names() const;
    Result<MapRef> map(const std::string& name) const;
    Result<ProgramRef> program(const std::string& name) const;

  private:
    struct Impl;
    explicit Object(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace strbpf
