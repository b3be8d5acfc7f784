// SPDX-License-Identifier: BSD-2-Clause
// Run-time errors name instructions as the user wrote them (exec stage). See source_pc.hpp.
#include "exec/source_pc.hpp"

#include <cctype>

#include <fmt/format.h>

#include "verifier/verified_program.hpp"

namespace strbpf::exec {

std::string name_source_pc(std::string message, const verifier::VerifiedProgram* source) {
    if (!source)
        return message;
    for (size_t at = message.find("pc "); at != std::string::npos; at = message.find("pc ", at + 3)) {
        if (at > 0 && std::isalnum(static_cast<unsigned char>(message[at - 1])))
            continue; // "...pc " inside a word
        size_t end = at + 3;
        while (end < message.size() && std::isdigit(static_cast<unsigned char>(message[end])))
            end++;
        if (end == at + 3 || end - at - 3 > 9)
            continue;
        const int64_t pc = std::stoll(message.substr(at + 3, end - at - 3));
        if (size_t(pc) >= source->facts.size())
            return message;
        const int32_t orig = source->orig_pc(pc);
        const std::string named =
            orig == pc ? fmt::format("pc {}", pc) : fmt::format("pc {} (rewritten pc {})", orig, pc);
        return message.replace(at, end - at, named);
    }
    return message;
}

std::string name_call_pc(std::string message, int64_t pc, const verifier::VerifiedProgram* source) {
    const int64_t orig = source && pc >= 0 && size_t(pc) < source->facts.size() ? source->orig_pc(pc) : pc;
    if (orig == pc)
        return fmt::format("{} (call at pc {})", message, pc);
    return fmt::format("{} (call at pc {}, rewritten pc {})", message, orig, pc);
}

} // namespace strbpf::exec
