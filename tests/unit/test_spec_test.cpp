// SPDX-License-Identifier: BSD-2-Clause
// Tests for the selftest annotation parser (exec stage): tags read from kernel_annot.bpf.o's BTF, __retval forms,
// and in-order message matching.
#include <gtest/gtest.h>

#include <algorithm>

#include "exec/test_spec.hpp"

namespace strbpf::exec {
namespace {

const std::string kAnnot = std::string(STRBPF_PROGS_DIR) + "/kernel_annot.bpf.o";

const TestSpec* find(const std::vector<TestSpec>& specs, const std::string& name) {
    auto it = std::find_if(specs.begin(), specs.end(), [&](const TestSpec& s) { return s.prog == name; });
    return it == specs.end() ? nullptr : &*it;
}

class AnnotTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto r = parse_test_specs(kAnnot);
        ASSERT_TRUE(r.ok()) << r.error().message;
        specs_ = r.value();
    }
    std::vector<TestSpec> specs_;
};

// test_loader makes a spec of every program, untagged ones included (a privileged __success test).
TEST_F(AnnotTest, EveryProgramInElfOrder) {
    std::vector<std::string> names;
    for (const TestSpec& s : specs_)
        names.push_back(s.prog);
    EXPECT_EQ(names, (std::vector<std::string>{"annot_success", "annot_enoent", "annot_hex", "annot_int_min",
                                               "annot_failure", "annot_unknown", "annot_untagged"}));
    const TestSpec* u = find(specs_, "annot_untagged");
    ASSERT_NE(u, nullptr);
    EXPECT_FALSE(u->tagged);
    EXPECT_EQ(u->mode_mask, kModePriv);
    EXPECT_FALSE(u->priv.expect_failure);
    EXPECT_EQ(u->priv.name, "annot_untagged");
    EXPECT_EQ(u->prog_flags, kDefaultProgFlags);
}

TEST_F(AnnotTest, SuccessDescriptionAndRetvalZero) {
    const TestSpec* s = find(specs_, "annot_success");
    ASSERT_NE(s, nullptr);
    EXPECT_TRUE(s->has_expect);
    EXPECT_TRUE(s->expect_success);
    EXPECT_EQ(s->description, "returns zero");
    ASSERT_TRUE(s->retval.has_value());
    EXPECT_EQ(*s->retval, 0u);
    EXPECT_TRUE(s->expects.empty());
}

TEST_F(AnnotTest, RetvalForms) {
    const TestSpec* enoent = find(specs_, "annot_enoent");
    const TestSpec* hex = find(specs_, "annot_hex");
    const TestSpec* int_min = find(specs_, "annot_int_min");
    ASSERT_TRUE(enoent && hex && int_min);
    EXPECT_EQ(enoent->retval, std::optional<uint32_t>(0xfffffffeu)); // -ENOENT
    EXPECT_EQ(hex->retval, std::optional<uint32_t>(0xffffffdeu));
    EXPECT_EQ(int_min->retval, std::optional<uint32_t>(0x80000000u));
}

TEST_F(AnnotTest, FailureWithMessagesAndRegexInOrder) {
    const TestSpec* s = find(specs_, "annot_failure");
    ASSERT_NE(s, nullptr);
    EXPECT_TRUE(s->has_expect);
    EXPECT_FALSE(s->expect_success);
    EXPECT_FALSE(s->retval.has_value());
    EXPECT_EQ(s->msgs, (std::vector<std::string>{"first message", "second message"})); // counters stripped
    EXPECT_EQ(s->regexes, (std::vector<std::string>{"R[0-9] invalid"}));
    ASSERT_EQ(s->expects.size(), 3u);
    EXPECT_EQ(s->expects[0].kind, ExpectKind::msg);
    EXPECT_EQ(s->expects[2].kind, ExpectKind::regex);
}

TEST_F(AnnotTest, UnknownTagsRecordedAndCounterFirstFormRead) {
    const TestSpec* s = find(specs_, "annot_unknown");
    ASSERT_NE(s, nullptr);
    EXPECT_FALSE(s->has_expect);
    EXPECT_TRUE(s->expect_success);
    EXPECT_EQ(s->log_level, 2);
    EXPECT_EQ(s->msgs, (std::vector<std::string>{"counter first"}));
    EXPECT_EQ(s->retval, std::optional<uint32_t>(0x80000000u)); // _INT_MIN
    // __msg_unpriv makes it an unprivileged test too, with its own pattern (a counter-less tag keeps its text).
    EXPECT_EQ(s->mode_mask, kModePriv | kModeUnpriv);
    ASSERT_EQ(s->unpriv.expects.size(), 1u);
    EXPECT_EQ(s->unpriv.expects[0].text, "unpriv message");
    EXPECT_EQ(s->unpriv.name, "annot_unknown @unpriv");
    EXPECT_EQ(s->unpriv.retval, s->priv.retval); // inherited
    auto has = [&](const std::string& k, const std::string& v) {
        return std::find(s->other_tags.begin(), s->other_tags.end(), std::make_pair(k, v)) != s->other_tags.end();
    };
    EXPECT_TRUE(has("test_flags", "BPF_F_TEST_STATE_FREQ")); // not test_prog_flags: no flag of test_loader's
    EXPECT_EQ(s->prog_flags, kDefaultProgFlags);
}

TEST(TestSpec, MissingObjectIsAnError) {
    auto r = parse_test_specs("/nonexistent/none.bpf.o");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("/nonexistent/none.bpf.o"), std::string::npos);
}

TEST(TestSpec, ParseRetvalAcceptsWhatTestLoaderAccepts) {
    const std::pair<const char*, uint32_t> good[] = {{"0", 0},
                                                     {"42", 42},
                                                     {"-2", 0xfffffffe},
                                                     {"0xffffffde", 0xffffffde},
                                                     {"0x10", 16},
                                                     {"-0x1", 0xffffffff},
                                                     {"INT_MIN", 0x80000000},
                                                     {"_INT_MIN", 0x80000000},
                                                     {"TEST_DATA_LEN", 64},
                                                     {"POINTER_VALUE", 0xcafe4a},
                                                     {"(-22)", 0xffffffea},
                                                     {"4294967295", 0xffffffff},
                                                     {"0xcafe4all", 0xcafe4a},
                                                     {"-2147483648", 0x80000000}};
    for (const auto& [text, want] : good) {
        uint32_t v = 1234;
        EXPECT_TRUE(parse_retval(text, &v)) << text;
        EXPECT_EQ(v, want) << text;
    }
    for (const char* bad : {"", "abc", "0x", "4294967296", "1-2", "--1", "12abc", "0xg"}) {
        uint32_t v = 0;
        EXPECT_FALSE(parse_retval(bad, &v)) << bad;
    }
}

TestSpec spec_with(std::vector<Expect> expects) {
    TestSpec s;
    s.prog = "p";
    s.expect_success = false;
    s.expects = std::move(expects);
    return s;
}

TEST(TestSpec, MatchMessagesInOrder) {
    const std::string log = "0: (b7) r0 = 0\n1: (85) call bpf_strncmp#182\nR3 does not point to a readonly map'\n"
                            "processed 2 insns (limit 1000000)\n";
    EXPECT_EQ(match_messages(spec_with({{ExpectKind::msg, "call bpf_strncmp"},
                                        {ExpectKind::msg, "does not point to a readonly map"}}),
                             log),
              "");
    std::string out_of_order =
        match_messages(spec_with({{ExpectKind::msg, "readonly map"}, {ExpectKind::msg, "call bpf_strncmp"}}), log);
    EXPECT_NE(out_of_order.find("call bpf_strncmp"), std::string::npos) << out_of_order;
    EXPECT_NE(out_of_order.find("after 'readonly map'"), std::string::npos) << out_of_order;
    EXPECT_NE(match_messages(spec_with({{ExpectKind::msg, "not in the log"}}), log), "");
}

TEST(TestSpec, MatchRegexAndBracedRegexAndNegatives) {
    const std::string log = "R2 invalid zero-sized read: u64=[0,4294967295]\nprocessed 9 insns\n";
    EXPECT_EQ(match_messages(spec_with({{ExpectKind::regex, "R[0-9] invalid zero-sized read"}}), log), "");
    // Verbatim text outside {{ }}: the brackets and commas match literally.
    EXPECT_EQ(
        match_messages(spec_with({{ExpectKind::msg, "R{{[0-9]}} invalid zero-sized read: u64=[0,{{[0-9]+}}]"}}), log),
        "");
    EXPECT_NE(match_messages(spec_with({{ExpectKind::regex, "^processed [a-z]+ insns"}}), log), "");
    EXPECT_EQ(
        match_messages(
            spec_with({{ExpectKind::msg, "R2"}, {ExpectKind::not_msg, "R3"}, {ExpectKind::msg, "processed"}}), log),
        "");
    EXPECT_NE(
        match_messages(
            spec_with({{ExpectKind::msg, "R2"}, {ExpectKind::not_msg, "zero-sized"}, {ExpectKind::msg, "processed"}}),
            log),
        "");
    std::string bad = match_messages(spec_with({{ExpectKind::regex, "("}}), log);
    EXPECT_NE(bad.find("bad pattern"), std::string::npos) << bad;
}

} // namespace
} // namespace strbpf::exec
