// SPDX-License-Identifier: BSD-2-Clause
// strbpf-grep: prints the lines of its files (or stdin) that a user's BPF program accepts, grep-style.
//
// The filter convention: a SEC("syscall") program whose ctx is the line itself, without its newline and
// NUL-terminated (a C string the string kfuncs and bpf_strncmp read directly); it returns non-zero to select the
// line. The filter is configured as libbpf skeletons are: `-s VAR=TEXT` / `-i VAR=NUMBER` set its globals (a
// `const volatile` .rodata variable is a constant for the verifier) before the object is loaded, verified and
// JIT-compiled. A program that reads ctx bytes at fixed offsets sees a short line zero-padded.
//
//   strbpf-grep [-v] [-c] [-n] [-p PROG] [-s VAR=TEXT]... [-i VAR=N]... [--engine jit|interp] FILTER.bpf.o [FILE...]
// Output as grep's: with several files each line (and each -c count) is prefixed by its file's name, -n numbers
// lines within their file. Exit status as grep's: 0 a line was selected, 1 none was, 2 an error.
#include <strbpf/object.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Options {
    bool invert = false, count = false, number = false;
    std::string prog, object;
    std::vector<std::pair<std::string, std::string>> strings, ints;
    strbpf::Engine engine = strbpf::Engine::jit;
    std::vector<std::string> files;
};

[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr, "strbpf-grep: %s\nusage: strbpf-grep [-v] [-c] [-n] [-p PROG] [-s VAR=TEXT] [-i VAR=N] "
                         "[--engine jit|interp] FILTER.bpf.o [FILE...]\n", why);
    std::exit(2);
}

bool split_assignment(const char* arg, std::vector<std::pair<std::string, std::string>>& out) {
    const char* eq = std::strchr(arg, '=');
    if (!eq || eq == arg)
        return false;
    out.emplace_back(std::string(arg, eq), std::string(eq + 1));
    return true;
}

Options parse(int argc, char** argv) {
    Options o;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        const std::string a = argv[i];
        const bool has_next = i + 1 < argc;
        if (a == "-v")
            o.invert = true;
        else if (a == "-c")
            o.count = true;
        else if (a == "-n")
            o.number = true;
        else if (a == "-p" && has_next)
            o.prog = argv[++i];
        else if (a == "-s" && has_next) {
            if (!split_assignment(argv[++i], o.strings))
                usage("-s takes VAR=TEXT");
        } else if (a == "-i" && has_next) {
            if (!split_assignment(argv[++i], o.ints))
                usage("-i takes VAR=NUMBER");
        } else if (a == "--engine" && has_next) {
            const std::string e = argv[++i];
            if (e == "jit")
                o.engine = strbpf::Engine::jit;
            else if (e == "interp")
                o.engine = strbpf::Engine::interp;
            else
                usage("--engine is jit or interp");
        } else if (a == "--")
            break;
        else
            usage(("unknown option " + a).c_str());
    }
    if (i < argc && std::string(argv[i]) == "--")
        i++;
    if (i >= argc)
        usage("no filter program");
    o.object = argv[i++];
    for (; i < argc; i++)
        o.files.push_back(argv[i]);
    return o;
}

// Sets a global to a string (zero-filled to the variable's size) or to an integer of the variable's size.
strbpf::Status set_globals(strbpf::Object& obj, const Options& o) {
    for (const auto& [var, text] : o.strings) {
        auto info = obj.global_info(var);
        if (!info)
            return info.error();
        if (text.size() + 1 > info->size)
            return strbpf::make_error("-s " + var + ": the text does not fit the variable's " +
                                      std::to_string(info->size) + " bytes with its NUL");
        std::vector<uint8_t> bytes(info->size, 0);
        std::memcpy(bytes.data(), text.data(), text.size());
        STRBPF_TRY(obj.set_global(var, bytes));
    }
    for (const auto& [var, text] : o.ints) {
        auto info = obj.global_info(var);
        if (!info)
            return info.error();
        char* end = nullptr;
        errno = 0;
        const long long v = std::strtoll(text.c_str(), &end, 0);
        if (errno || end == text.c_str() || *end || !info->integer || info->size > 8)
            return strbpf::make_error("-i " + var + ": not an integer, or not an integer variable");
        std::vector<uint8_t> bytes(info->size);
        std::memcpy(bytes.data(), &v, info->size); // little-endian: the low bytes
        STRBPF_TRY(obj.set_global(var, bytes));
    }
    return strbpf::ok_status();
}

class Filter {
  public:
    Filter(strbpf::Runner runner, const Options& o) : runner_(std::move(runner)), o_(o) {}

    // One line, NUL-terminated in place: line[len] == 0. Returns 1 selected, 0 not, -1 error (printed).
    int select(char* line, size_t len) {
        auto r = runner_.run(std::span<uint8_t>(reinterpret_cast<uint8_t*>(line), len + 1));
        if (!r && r.error().code == -EINVAL) { // the program reads past a short line: give it zeros
            padded_.assign(len + 1 + kPad, 0);
            std::memcpy(padded_.data(), line, len);
            r = runner_.run(std::span<uint8_t>(padded_));
        }
        if (!r) {
            std::fprintf(stderr, "strbpf-grep: %s\n", r.error().message.c_str());
            return -1;
        }
        return (*r != 0) != o_.invert;
    }

  private:
    static constexpr size_t kPad = 4096;
    strbpf::Runner runner_;
    const Options& o_;
    std::vector<uint8_t> padded_;
};

// Reads fd to its end, filtering each line. Returns the selected lines, or -1 on error.
long filter_fd(int fd, const char* name, Filter& f, const Options& o) {
    std::vector<char> buf(1 << 20);
    size_t have = 0;
    long selected = 0, lineno = 0;
    bool eof = false;
    while (!eof) {
        if (have == buf.size())
            buf.resize(buf.size() * 2); // a line longer than the buffer
        const ssize_t n = read(fd, buf.data() + have, buf.size() - have - 1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            std::fprintf(stderr, "strbpf-grep: %s: %s\n", name, std::strerror(errno));
            return -1;
        }
        eof = n == 0;
        have += size_t(n);
        if (eof && have && buf[have - 1] != '\n')
            buf[have++] = '\n'; // the last line without its newline (buf keeps one byte spare for it)
        size_t start = 0;
        for (char* nl; (nl = static_cast<char*>(std::memchr(buf.data() + start, '\n', have - start)));) {
            const size_t len = size_t(nl - (buf.data() + start));
            *nl = 0;
            lineno++;
            const int s = f.select(buf.data() + start, len);
            if (s < 0)
                return -1;
            if (s) {
                selected++;
                if (!o.count) {
                    if (o.files.size() > 1)
                        std::printf("%s:", name);
                    if (o.number)
                        std::printf("%ld:", lineno);
                    std::fwrite(buf.data() + start, 1, len, stdout);
                    std::fputc('\n', stdout);
                }
            }
            start += len + 1;
        }
        std::memmove(buf.data(), buf.data() + start, have - start);
        have -= start;
    }
    return selected;
}

} // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    auto obj = strbpf::Object::open(o.object);
    if (!obj) {
        std::fprintf(stderr, "strbpf-grep: %s\n", obj.error().message.c_str());
        return 2;
    }
    const auto names = obj->program_names();
    const std::string prog_name = o.prog.empty() && !names.empty() ? names.front() : o.prog;
    for (const auto& n : names) // only the filter is verified and compiled
        (void)obj->program(n)->set_autoload(n == prog_name);
    strbpf::LoadOptions lo;
    lo.engine = o.engine;
    strbpf::Status st = set_globals(*obj, o);
    if (st)
        st = obj->load(lo);
    auto prog = st ? obj->program(prog_name) : strbpf::Result<strbpf::ProgramRef>(st.error());
    constexpr uint32_t kSyscall = 31; // BPF_PROG_TYPE_SYSCALL: the filter convention's program type
    if (prog && prog->type() != kSyscall)
        prog = strbpf::make_error("program '" + prog_name + "' (" + prog->section() +
                                  ") is not a SEC(\"syscall\") program: the filter takes the line as its ctx");
    auto runner = prog ? strbpf::Runner::create(*prog) : strbpf::Result<strbpf::Runner>(prog.error());
    if (!runner) {
        std::fprintf(stderr, "strbpf-grep: %s\n", runner.error().message.c_str());
        return 2;
    }
    static char out[1 << 16];
    std::setvbuf(stdout, out, _IOFBF, sizeof out);
    Filter filter(std::move(runner).value(), o);
    long total = 0;
    std::vector<std::string> files = o.files.empty() ? std::vector<std::string>{"-"} : o.files;
    for (const auto& file : files) {
        const int fd = file == "-" ? 0 : open(file.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            std::fprintf(stderr, "strbpf-grep: %s: %s\n", file.c_str(), std::strerror(errno));
            return 2;
        }
        const long n = filter_fd(fd, file.c_str(), filter, o);
        if (fd != 0)
            close(fd);
        if (n < 0)
            return 2;
        if (o.count && files.size() > 1)
            std::printf("%s:%ld\n", file.c_str(), n);
        else if (o.count)
            std::printf("%ld\n", n);
        total += n;
    }
    std::fflush(stdout);
    return total ? 0 : 1;
}
