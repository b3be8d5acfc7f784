// The embedding API's objects and programs (api stage): a facade over loader, runtime::ObjectInstance and the
// interpreter, keeping every internal type out of include/strbpf.
#include "strbpf/object.hpp"

#include <memory>

#include <fmt/format.h>

#include "exec/contexts.hpp"
#include "exec/interp/interpreter.hpp"
#include "loader/loader.hpp"
#include "runtime/instance.hpp"

namespace strbpf {

struct Object::Impl {
    std::unique_ptr<runtime::ObjectInstance> inst;
};

Object::Object(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Object::Object(Object&&) noexcept = default;
Object& Object::operator=(Object&&) noexcept = default;
Object::~Object() = default;

Result<Object> Object::open(const std::string& path) {
    auto spec = loader::load_object_file(path);
    if (!spec)
        return spec.error();
    auto inst = runtime::ObjectInstance::create(std::make_shared<loader::ObjectSpec>(std::move(spec).value()));
    if (!inst)
        return inst.error();
    auto impl = std::make_unique<Impl>();
    impl->inst = std::move(inst).value();
    return Object(std::move(impl));
}

std::vector<std::string> Object::map_names() const {
    std::vector<std::string> out;
    for (size_t i = 0; i < impl_->inst->map_count(); i++)
        out.push_back(impl_->inst->map(i)->name());
    return out;
}

std::vector<std::string> Object::program_names() const {
    std::vector<std::string> out;
    for (const auto& p : impl_->inst->programs())
        out.push_back(p.spec->name);
    return out;
}

Result<MapRef> Object::map(const std::string& name) const {
    runtime::Map* m = impl_->inst->find_map(name);
    if (!m)
        return make_error(fmt::format("no map '{}' in {}", name, impl_->inst->spec().path), -2);
    return MapRef(m);
}

Result<ProgramRef> Object::program(const std::string& name) const {
    const runtime::LinkedProgram* p = impl_->inst->find_program(name);
    if (!p)
        return make_error(fmt::format("no program '{}' in {}", name, impl_->inst->spec().path), -2);
    return ProgramRef(impl_->inst.get(), p);
}

namespace {
const runtime::LinkedProgram& linked(const void* p) { return *static_cast<const runtime::LinkedProgram*>(p); }
} // namespace

const std::string& ProgramRef::name() const { return linked(prog_).spec->name; }
const std::string& ProgramRef::section() const { return linked(prog_).spec->section; }

Result<RunResult> ProgramRef::run(const RunOptions& opts) const {
    const auto& prog = linked(prog_);
    if (!prog.linked)
        return prog.link_error;
    const auto* inst = static_cast<const runtime::ObjectInstance*>(obj_);
    runtime::RunContext ctx;
    auto stack = std::make_unique<runtime::StackArea>();
    runtime::prepare_run_context(ctx, inst, stack.get());
    ctx.cpu = opts.cpu % runtime::possible_cpus();
    ctx.trace_out = opts.trace;
    exec::RunRequest req;
    req.ctx_in = opts.ctx;
    req.data_in = opts.data;
    exec::TestRunContext trc;
    uint64_t r1 = 0;
    if (auto st = trc.build(prog.spec->type, req, ctx, &r1); !st)
        return st.error();
    auto res = exec::interp::run_validated(prog.insns, r1, 0, ctx, *stack);
    if (!res.ok)
        return make_error(fmt::format("program '{}': {}", prog.spec->name, res.error), -22, res.pc);
    exec::RunReport rep;
    trc.finish(&rep);
    RunResult out;
    out.r0 = res.r0;
    out.retval = uint32_t(res.r0);
    out.data_out = std::move(rep.data_out);
    out.ctx_out = std::move(rep.ctx_out);
    return out;
}

} // namespace strbpf
