// SPDX-License-Identifier: BSD-2-Clause
// strbpf command-line entry point (tools stage): one subcommand per file, exit codes as documented in cli.hpp.
#include <cstdio>

#include "cli.hpp"
#include "strbpf_version.hpp"

namespace {

using namespace strbpf::cli;

// `strbpf help [CMD [SUB]]`: the help of the whole tool or of one command, as `CMD --help` prints it.
int print_help(CLI::App& app, const std::vector<std::string>& words) {
    CLI::App* at = &app;
    for (const std::string& w : words) {
        CLI::App* sub = nullptr;
        for (CLI::App* s : at->get_subcommands({}))
            if (s->get_name() == w)
                sub = s;
        if (!sub || sub->get_name() == "help") {
            std::string names;
            for (CLI::App* s : at->get_subcommands({}))
                names += (names.empty() ? "" : ", ") + s->get_name();
            std::fprintf(stderr, "strbpf help: no command '%s' (commands: %s)\n", w.c_str(), names.c_str());
            return kExitUsage;
        }
        at = sub;
    }
    std::fputs(at->help().c_str(), stdout);
    return kExitOk;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"strbpf: run, test and benchmark eBPF programs in user space, with the kernel's string helper "
                 "and kfuncs"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "strbpf 0.1.0 (commit " STRBPF_GIT_COMMIT ")");
    std::vector<std::pair<CLI::App*, Runner>> commands;
    auto add = [&](Runner (*fn)(CLI::App&)) {
        const size_t before = app.get_subcommands({}).size();
        Runner r = fn(app);
        CLI::App* sub = app.get_subcommands({})[before];
        add_target_options(*sub);
        commands.emplace_back(sub, std::move(r));
    };
    add(add_run_command);
    add(add_disasm_command);
    add(add_test_command);
    add(add_map_command);
    add(add_verify_command);
    add(add_bench_command);
    add(add_conformance_command);
    std::vector<std::string> help_words;
    CLI::App* help = app.add_subcommand("help", "Print the help of strbpf or of one command (strbpf help run)");
    help->add_option("CMD", help_words, "a command, and a subcommand of it (strbpf help map dump)");
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return kExitUsage;
    }
    if (help->parsed())
        return print_help(app, help_words);
    for (auto& [sub, run] : commands)
        if (sub->parsed())
            return apply_kernel_variant() ? run() : kExitUsage;
    return kExitUsage;
}
