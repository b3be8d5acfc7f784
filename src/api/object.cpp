// SPDX-License-Identifier: BSD-2-Clause
// The embedding API's object lifecycle (api stage): open a file or an image, load (instance, verifier, JIT), find
// maps and programs. Globals are in globals.cpp, programs and runners in program.cpp.
#include "strbpf/object.hpp"

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <iterator>
#include <memory>

#include <fmt/format.h>

#include "api/extensions_impl.hpp"
#include "api/object_impl.hpp"
#include "exec/runner.hpp"
#include "loader/loader.hpp"
#include "verifier/verified_program.hpp"

namespace strbpf {
namespace {

std::string default_name(const std::string& path) {
    std::string base = path.substr(path.find_last_of('/') + 1);
    for (const char* suffix : {".bpf.o", ".o"}) {
        const std::string s = suffix;
        if (base.size() > s.size() && base.compare(base.size() - s.size(), s.size(), s) == 0)
            return base.substr(0, base.size() - s.size());
    }
    return base;
}

void apply_ext_sections(const runtime::Extensions& ext, loader::ObjectSpec& spec);

Result<std::unique_ptr<Object::Impl>> make_object(Result<loader::ObjectSpec> spec, std::vector<uint8_t> image,
                                                  std::string name, const OpenOptions& opts) {
    if (!spec)
        return spec.error();
    auto impl = std::make_unique<Object::Impl>();
    impl->name = opts.object_name.empty() ? std::move(name) : opts.object_name;
    impl->opts = opts;
    impl->spec = std::make_shared<loader::ObjectSpec>(std::move(spec).value());
    if (opts.extensions) {
        impl->ext = opts.extensions->impl()->ext;
        STRBPF_TRY(impl->ext->freeze());
        apply_ext_sections(*impl->ext, *impl->spec);
    }
    for (const auto& p : impl->spec->programs) {
        ProgramState st;
        st.spec = &p;
        st.autoload = p.autoload;
        impl->progs.push_back(std::move(st));
    }
    STRBPF_TRY(index_globals(*impl, std::move(image)));
    return impl;
}

// Programs in an embedder type's section: libbpf's loader left them without a type (load_error says so, and the
// program was linked: it has instructions); they get the embedder's type.
void apply_ext_sections(const runtime::Extensions& ext, loader::ObjectSpec& spec) {
    for (loader::ProgramSpec& p : spec.programs) {
        const runtime::ExtProgType* t = ext.prog_type_for_section(p.section);
        if (t && p.type == loader::ProgType::unspec && !p.insns.empty() &&
            p.load_error.find("missing BPF prog type") != std::string::npos) {
            p.type = t->type;
            p.load_error.clear();
            p.load_error_code = 0;
        }
    }
}

// ProgramState::wipe_* and tail_calls from the verified program: its functions' deepest stack use, or the whole
// stack when the program is unverified (interp_checked) or tail-calls (the target's frames are not ours to know).
void plan_stack_wipe(ProgramState& st) {
    const verifier::VerifiedProgram* vp = st.linked->cache->program.get();
    auto tail_call = [](const isa::Insn& in) { // bpf_tail_call
        return in.opcode == (isa::BPF_JMP | isa::BPF_CALL) && in.src == 0 && in.imm == 12;
    };
    st.tail_calls = vp && std::any_of(vp->insns.begin(), vp->insns.end(), tail_call);
    if (st.engine == Engine::interp_checked || !vp || st.tail_calls) {
        st.wipe_frames = uint32_t(isa::kMaxCallDepth);
        st.wipe_bytes = uint32_t(isa::kStackSize);
        return;
    }
    uint32_t depth = 0;
    for (const verifier::Function& f : vp->functions)
        depth = std::max(depth, f.stack_depth);
    st.wipe_bytes = std::min<uint32_t>(depth, isa::kStackSize);
    st.wipe_frames = st.wipe_bytes ? uint32_t(std::min<size_t>(vp->functions.size(), isa::kMaxCallDepth)) : 0;
}

// Verifies one autoload program and prepares its engine. Error: the load fails with it.
Status load_program(Object::Impl& o, ProgramState& st, const LoadOptions& opts) {
    const runtime::LinkedProgram* lp = o.inst->find_program(st.spec->name);
    if (!lp || !lp->linked)
        return make_error(fmt::format("program '{}': {}", st.spec->name,
                                      lp ? lp->link_error.message : std::string("not linked")),
                          -EINVAL);
    const Engine engine = st.engine_set ? st.engine : opts.engine;
    st.engine = engine;
    st.linked = lp;
    const Status verdict = exec::load_check(engine_kind(engine), *o.inst, *lp, opts.log_level, &st.log);
    if (!verdict && engine != Engine::interp_checked)
        return verdict.error();
    st.accepted = lp->cache->accepted;
    st.reason = lp->cache->reason;
    o.log(LogLevel::info, fmt::format("program '{}': {}", st.spec->name,
                                      st.accepted ? "accepted" : "rejected: " + st.reason));
    if (!st.log.empty())
        o.log(LogLevel::debug, st.log);
    if (engine == Engine::jit) {
        auto code = exec::jit::compile_cached(*lp);
        if (!code)
            return make_error(fmt::format("program '{}': {}", st.spec->name, code.error().message), -EINVAL);
        st.jit = std::move(code).value();
    }
    plan_stack_wipe(st);
    if (st.accepted && engine != Engine::interp_checked) {
        st.probe = engine == Engine::interp && exec::interp_probes(*lp);
        st.btf_refused = !exec::check_btf_loads(engine_kind(engine), *lp);
    }
    st.loaded = true;
    return ok_status();
}

} // namespace

Object::Object(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Object::Object(Object&&) noexcept = default;
Object& Object::operator=(Object&&) noexcept = default;
Object::~Object() = default;

Result<Object> Object::open(const std::string& path, const OpenOptions& opts) {
    auto spec = loader::load_object_file(path, loader::LoadOptions{opts.kconfig_path, opts.btf_path});
    std::vector<uint8_t> image;
    if (spec) { // the loader read it: read it again for the symbol table
        std::ifstream in(path, std::ios::binary);
        image.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    auto o = make_object(std::move(spec), std::move(image), default_name(path), opts);
    if (!o)
        return o.error();
    return Object(std::move(o).value());
}

Result<Object> Object::open_memory(std::span<const uint8_t> image, const OpenOptions& opts) {
    const std::string name = opts.object_name.empty() ? "<memory>" : opts.object_name;
    auto o = make_object(loader::load_object_memory(image, name, loader::LoadOptions{opts.kconfig_path, opts.btf_path}),
                         std::vector<uint8_t>(image.begin(), image.end()),
                         name, opts);
    if (!o)
        return o.error();
    return Object(std::move(o).value());
}

const std::string& Object::name() const { return impl_->name; }
bool Object::loaded() const { return impl_->inst != nullptr; }

Status Object::load(const LoadOptions& opts) {
    Impl& o = *impl_;
    if (o.inst)
        return make_error(fmt::format("object '{}' is loaded already", o.name), -EBUSY);
    if (opts.log_level < 0 || opts.log_level > 2)
        return make_error(fmt::format("log level {} is not 0, 1 or 2", opts.log_level), -EINVAL);
    auto inst = runtime::ObjectInstance::create(o.spec, {}, o.ext);
    if (!inst)
        return make_error(fmt::format("object '{}': {}", o.name, inst.error().message), inst.error().code);
    o.inst = std::move(inst).value();
    for (ProgramState& st : o.progs) {
        if (!st.autoload)
            continue;
        if (auto s = load_program(o, st, opts); !s) {
            Error e = s.error();
            if (e.message.rfind("program '", 0) != 0)
                e.message = fmt::format("program '{}': {}", st.spec->name, e.message);
            o.log(LogLevel::warn, e.message + (st.log.empty() ? "" : "\n" + st.log));
            for (ProgramState& p : o.progs)
                p.unload(&p == &st); // the rejected program's log stays readable
            o.inst.reset();
            return e;
        }
    }
    return ok_status();
}

std::vector<std::string> Object::map_names() const {
    std::vector<std::string> out;
    if (impl_->inst)
        for (size_t i = 0; i < impl_->inst->map_count(); i++)
            out.push_back(impl_->inst->map(i)->name());
    return out;
}

std::vector<std::string> Object::program_names() const {
    std::vector<std::string> out;
    for (const auto& p : impl_->progs)
        out.push_back(p.spec->name);
    return out;
}

Result<MapRef> Object::map(const std::string& name) const {
    if (!impl_->inst)
        return make_error(fmt::format("object '{}' is not loaded: its maps exist after load()", impl_->name), -ENOENT);
    runtime::Map* m = impl_->inst->find_map(name);
    if (!m)
        return make_error(fmt::format("no map '{}' in {}", name, impl_->name), -ENOENT);
    return MapRef(m);
}

Result<ProgramRef> Object::program(const std::string& name) const {
    for (size_t i = 0; i < impl_->progs.size(); i++)
        if (impl_->progs[i].spec->name == name)
            return ProgramRef(impl_.get(), i);
    return make_error(fmt::format("no program '{}' in {}", name, impl_->name), -ENOENT);
}

} // namespace strbpf
