// SPDX-License-Identifier: BSD-2-Clause
// A host file a map entry holds (runtime stage): xskmap's AF_XDP sockets and cgroup_array's cgroup directories
// take the caller's fd, as the kernel takes a reference to the file; strbpf keeps a close-on-exec duplicate, so
// the entry outlives the caller's fd, with the file's identity (two fds of one file are one entry). Move-only; the
// duplicate is closed with the entry.
#pragma once
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace strbpf::runtime {

class HostFd {
  public:
    HostFd() = default;
    HostFd(HostFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)), dev_(o.dev_), ino_(o.ino_) {}
    HostFd& operator=(HostFd&& o) noexcept {
        if (this != &o) {
            reset();
            fd_ = std::exchange(o.fd_, -1), dev_ = o.dev_, ino_ = o.ino_;
        }
        return *this;
    }
    HostFd(const HostFd&) = delete;
    HostFd& operator=(const HostFd&) = delete;
    ~HostFd() { reset(); }

    // A duplicate of FD, whose fstat is ST; false with errno set when F_DUPFD_CLOEXEC fails.
    bool dup_of(int fd, const struct stat& st) {
        const int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
        if (d < 0)
            return false;
        reset();
        fd_ = d, dev_ = st.st_dev, ino_ = st.st_ino;
        return true;
    }
    void reset() {
        if (fd_ >= 0)
            close(fd_);
        fd_ = -1;
    }
    bool empty() const { return fd_ < 0; }
    int fd() const { return fd_; } // -1 when empty
    // Whether the entry holds the file ST describes.
    bool same_file(const struct stat& st) const { return fd_ >= 0 && dev_ == st.st_dev && ino_ == st.st_ino; }
    dev_t dev() const { return dev_; }
    ino_t ino() const { return ino_; }

  private:
    int fd_ = -1;
    dev_t dev_ = 0;
    ino_t ino_ = 0;
};

} // namespace strbpf::runtime
