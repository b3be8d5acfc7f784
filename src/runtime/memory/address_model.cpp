// SPDX-License-Identifier: BSD-2-Clause
// The host facts behind the kernel's -ERANGE rule (runtime stage): derived once, as the x86-64 kernel derives them.
#include "runtime/memory/address_model.hpp"

#include <atomic>
#include <cpuid.h>
#include <sys/mman.h>

#include <fmt/format.h>

namespace strbpf::runtime {

namespace {

// get_cpu_address_sizes(): the width the CPU reports in CPUID 0x80000008, 48 on a 64-bit CPU without the leaf.
unsigned cpu_virt_bits() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) || eax < 0x80000008u)
        return 48;
    if (!__get_cpuid(0x80000008u, &eax, &ebx, &ecx, &edx))
        return 48;
    const unsigned bits = (eax >> 8) & 0xff;
    return bits >= 32 && bits <= 64 ? bits : 48; // a width the shifts below can use; x86-64 reports 48 or 57
}

// Under 4-level paging no user mapping can lie at or above 2^47; under 5-level paging the kernel maps a fixed
// address up to 2^56 - PAGE_SIZE. MAP_FIXED_NOREPLACE never replaces anything, and an older kernel that treats the
// flag as a hint answers with another address, which also reads as 4-level.
bool five_level_paging() {
    void* const want = reinterpret_cast<void*>(uintptr_t(1) << 52);
    void* got = mmap(want, AddressModel::kPageSize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (got == MAP_FAILED)
        return false;
    munmap(got, AddressModel::kPageSize);
    return got == want;
}

std::atomic<const AddressModel*> forced{nullptr};

} // namespace

std::string AddressModel::describe() const {
    return fmt::format("{}-bit virtual addresses, {}-level paging (TASK_SIZE_MAX {:#x})", virt_bits,
                       five_level ? 5 : 4, task_size_max());
}

const AddressModel& host_address_model() {
    static const AddressModel host{cpu_virt_bits(), five_level_paging()};
    return host;
}

const AddressModel& address_model() {
    const AddressModel* m = forced.load(std::memory_order_acquire);
    return m ? *m : host_address_model();
}

ScopedAddressModel::ScopedAddressModel(const AddressModel& m)
    : model_(m), previous_(forced.exchange(&model_, std::memory_order_acq_rel)) {}

ScopedAddressModel::~ScopedAddressModel() { forced.store(previous_, std::memory_order_release); }

} // namespace strbpf::runtime
