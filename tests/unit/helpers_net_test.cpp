// SPDX-License-Identifier: BSD-2-Clause
// bpf_get_netns_cookie and bpf_check_mtu answer the host's facts (runtime stage): the value each engine returns
// is the live kernel's for the same test run, and the host's own answer (SO_NETNS_COOKIE of a socket in this
// namespace, SIOCGIFMTU of the loopback device). The rules around the values are in tests/progs/helpers_net.bpf.c.
#include <gtest/gtest.h>

#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>

#include "exec/kernel/kernel_engine.hpp"
#include "exec/runner.hpp"
#include "loader/loader.hpp"

namespace strbpf {
namespace {

const std::string kObj = std::string(STRBPF_PROGS_DIR) + "/kernel_net_values.bpf.o";

uint64_t host_netns_cookie() {
    uint64_t c = 0;
    socklen_t len = sizeof c;
    const int fd = socket(AF_INET, SOCK_DGRAM, 0);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(getsockopt(fd, SOL_SOCKET, 71 /* SO_NETNS_COOKIE */, &c, &len), 0);
    close(fd);
    return c;
}

int host_lo_mtu() {
    struct ifreq ifr{};
    std::strcpy(ifr.ifr_name, "lo");
    const int fd = socket(AF_INET, SOCK_DGRAM, 0);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(ioctl(fd, SIOCGIFMTU, &ifr), 0);
    close(fd);
    return ifr.ifr_mtu;
}

// The program's result on interp and jit (all equal), after the kernel's when bpf() works.
void expect_engines_agree(const char* prog, uint32_t host) {
    auto spec = loader::load_object_file(kObj);
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    auto shared = std::make_shared<const loader::ObjectSpec>(std::move(spec).value());
    for (exec::EngineKind e : {exec::EngineKind::interp, exec::EngineKind::jit}) {
        const exec::RunReport r = exec::run_fresh(e, shared, prog, exec::RunRequest{});
        ASSERT_TRUE(r.loaded && r.ran) << prog << ": " << r.error;
        EXPECT_EQ(uint32_t(r.retval), host) << prog;
    }
    if (Status st = exec::kernel::available(); !st.ok())
        GTEST_SKIP() << "kernel engine unavailable: " << st.error().message;
    const exec::RunReport k = exec::kernel::run(kObj, prog, exec::RunRequest{});
    ASSERT_TRUE(k.loaded && k.ran) << prog << ": " << k.error;
    EXPECT_EQ(uint32_t(k.retval), host) << prog;
}

TEST(HelpersNet, NetnsCookieIsTheNamespacesOnEveryEngine) {
    expect_engines_agree("netns_cookie_low", uint32_t(host_netns_cookie()));
}

TEST(HelpersNet, CheckMtuIsLoopbacksOnEveryEngine) {
    expect_engines_agree("skb_mtu", uint32_t(host_lo_mtu()));
    expect_engines_agree("xdp_mtu", uint32_t(host_lo_mtu()));
}

} // namespace
} // namespace strbpf
