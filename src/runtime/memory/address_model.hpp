// SPDX-License-Identifier: BSD-2-Clause
// The host facts behind the kernel's -ERANGE rule (runtime stage): which addresses x86-64's
// copy_from_kernel_nofault_allowed() refuses depends on the CPU's virtual-address width and on the paging mode the
// kernel runs, so strbpf derives both the way the kernel does, once, and tests can force every variant.
#pragma once
#include <cstdint>
#include <string>

namespace strbpf::runtime {

struct AddressModel {
    // boot_cpu_data.x86_virt_bits: CPUID leaf 0x80000008 EAX[15:8], or 48 when the CPU lacks that leaf. The
    // kernel judges canonicality against this width, not against the paging mode: a CPU reporting 57 bits under
    // 4-level paging treats 0x0000800000000000 as a canonical kernel address.
    unsigned virt_bits = 48;
    // 5-level paging (LA57) in force. TASK_SIZE_MAX follows the paging mode: 2^47 or 2^56, less one page.
    bool five_level = false;

    static constexpr uint64_t kPageSize = 4096;
    static constexpr uint64_t kVsyscallPage = 0xffffffffff600000ull; // the same address in both paging modes

    uint64_t task_size_max() const { return (uint64_t(1) << (five_level ? 56 : 47)) - kPageSize; }
    bool canonical(uint64_t addr) const {
        const unsigned shift = 64 - virt_bits;
        return uint64_t(int64_t(addr << shift) >> shift) == addr;
    }
    // copy_from_kernel_nofault_allowed() == false: the user half and the guard page above it (below
    // TASK_SIZE_MAX + PAGE_SIZE), the vsyscall page, and addresses not canonical at virt_bits.
    bool refused(uint64_t addr) const {
        if (addr < task_size_max() + kPageSize)
            return true;
        if ((addr & ~(kPageSize - 1)) == kVsyscallPage)
            return true;
        return !canonical(addr);
    }
    // "57-bit virtual addresses, 4-level paging (TASK_SIZE_MAX 0x7ffffffff000)".
    std::string describe() const;

    friend bool operator==(const AddressModel&, const AddressModel&) = default;
};

// The host's facts, read once on first use: virt_bits from CPUID, the paging mode by asking the kernel for a
// mapping above the 4-level user half (it grants one only under 5-level paging).
const AddressModel& host_address_model();

// The model the string kfuncs and probe helpers judge by: the host's, unless a test forced another.
const AddressModel& address_model();

// Test-only: forces `m` for the lifetime of the object (not thread-safe against running programs; set it before).
class ScopedAddressModel {
  public:
    explicit ScopedAddressModel(const AddressModel& m);
    ~ScopedAddressModel();
    ScopedAddressModel(const ScopedAddressModel&) = delete;
    ScopedAddressModel& operator=(const ScopedAddressModel&) = delete;

  private:
    AddressModel model_;
    const AddressModel* previous_;
};

} // namespace strbpf::runtime
