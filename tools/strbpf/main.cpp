// strbpf command-line entry point (tools stage): one subcommand per file, exit codes as documented in cli.hpp.
#include <cstdio>

#include "cli.hpp"

int main(int argc, char** argv) {
    using namespace strbpf::cli;
    CLI::App app{"strbpf: run, test and benchmark eBPF programs in user space, with the kernel's string helper "
                 "and kfuncs"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "strbpf 0.1.0");
    std::vector<std::pair<CLI::App*, Runner>> commands;
    auto add = [&](Runner (*fn)(CLI::App&)) {
        const size_t before = app.get_subcommands({}).size();
        Runner r = fn(app);
        commands.emplace_back(app.get_subcommands({})[before], std::move(r));
    };
    add(add_run_command);
    add(add_disasm_command);
    add(add_test_command);
    add(add_map_command);
    add(add_verify_command);
    add(add_bench_command);
    add(add_conformance_command);
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
    for (auto& [sub, run] : commands)
        if (sub->parsed())
            return run();
    return kExitUsage;
}
