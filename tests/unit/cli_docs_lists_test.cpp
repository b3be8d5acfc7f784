// SPDX-License-Identifier: BSD-2-Clause
// README.md's "What runs" lists (program types by SEC() name, map types, helpers) against the code's tables: a
// section, map type or helper added to or dropped from the code without the README fails here.
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "loader/loader.hpp"
#include "runtime/helpers/helper_table.hpp"
#include "runtime/maps/map.hpp"

namespace {

using namespace strbpf;

// The README paragraph or table that starts with `start` (up to the next blank line).
std::string readme_part(const std::string& start) {
    std::ifstream f(std::string(STRBPF_SOURCE_DIR) + "/README.md");
    std::stringstream all;
    all << f.rdbuf();
    const std::string s = all.str();
    const size_t at = s.find(start);
    if (at == std::string::npos)
        return "";
    const size_t end = s.find("\n\n", at);
    return s.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// Every "`name` (number)" of a text.
std::map<std::string, uint32_t> named_numbers(const std::string& text) {
    std::map<std::string, uint32_t> out;
    const std::regex re("`([a-z_0-9]+)`\\s+\\((\\d+)\\)");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
        out[(*it)[1]] = uint32_t(std::stoul((*it)[2]));
    return out;
}

TEST(CliDocsLists, HelpersAreTheHelperTable) {
    const std::map<std::string, uint32_t> listed = named_numbers(readme_part("Helpers: "));
    std::map<std::string, uint32_t> table;
    for (const runtime::HelperProto& h : runtime::helper_table())
        if (h.fn) // implemented; the other rows are judged by the verifier and stop a run that reaches them
            table[h.name] = uint32_t(h.id);
    EXPECT_EQ(listed, table);
}

loader::MapSpec map_spec(uint32_t type) {
    loader::MapSpec s;
    s.name = "m";
    s.section = ".maps";
    s.type = type;
    s.key_size = type == loader::kMapRingbuf ? 0 : 4;
    s.value_size = type == loader::kMapRingbuf ? 0 : 8;
    s.max_entries = type == loader::kMapRingbuf ? 4096 : 4;
    return s;
}

TEST(CliDocsLists, MapTypesAreTheOnesThatCreate) {
    const std::map<std::string, uint32_t> run = named_numbers(readme_part("Map types: "));
    ASSERT_FALSE(run.empty());
    std::set<uint32_t> run_ids;
    for (const auto& [name, id] : run) {
        run_ids.insert(id);
        EXPECT_STREQ(loader::map_type_name(id), name.c_str());
    }
    for (uint32_t type = 1; type <= 40; type++) { // enum bpf_map_type of Linux 6.18 ends below 40
        // A type strbpf does not support is refused by name whatever the spec; the others take a spec that fits.
        auto m = runtime::create_map(map_spec(type));
        const bool supported = m || m.error().message.find("does not support") == std::string::npos;
        EXPECT_EQ(supported, run_ids.count(type) == 1) << "map type " << type << ": "
                                                       << (m ? "created" : m.error().message);
    }
}

TEST(CliDocsLists, SectionsMapToTheListedProgramTypes) {
    const std::string table = readme_part("| SEC() | Program type |");
    const std::regex row("\\n\\| ([^|]+) \\| `([a-z_]+)` \\|");
    int rows = 0;
    for (auto it = std::sregex_iterator(table.begin(), table.end(), row); it != std::sregex_iterator(); ++it) {
        const std::string secs = (*it)[1], type = (*it)[2];
        const std::regex name("`([^`]+)`");
        for (auto s = std::sregex_iterator(secs.begin(), secs.end(), name); s != std::sregex_iterator(); ++s) {
            loader::ProgType t;
            ASSERT_TRUE(loader::prog_type_from_section((*s)[1], &t)) << (*s)[1];
            EXPECT_EQ(loader::prog_type_name(t), type) << (*s)[1];
        }
        rows++;
    }
    EXPECT_GE(rows, 8);
}

} // namespace
