// Reading a stopped tracee's execve: its registers, then the path and argv strings from its
// memory (process_vm_readv, else /proc/PID/mem), with the kernel's own limits, so a huge or
// unterminated argv is refused rather than half-judged.
#include <fcntl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

#include "exec-guard/guard.h"

namespace sandshim::guard {
namespace {

constexpr size_t kMaxString = 128 * 1024;    // MAX_ARG_STRLEN
constexpr size_t kMaxTotal = 8 * 1024 * 1024;  // more than any stack limit lets execve copy
constexpr size_t kMaxArgs = 1 << 20;

class Memory {
 public:
  explicit Memory(pid_t pid) : pid_(pid) {}
  ~Memory() {
    if (fd_ >= 0) ::close(fd_);
  }
  // Up to n bytes at addr, not crossing a page (a read never faults on the next one).
  ssize_t Read(uint64_t addr, void* out, size_t n) {
    size_t room = 4096 - (addr & 4095);
    if (n > room) n = room;
    iovec local{out, n}, remote{reinterpret_cast<void*>(addr), n};
    ssize_t got = ::process_vm_readv(pid_, &local, 1, &remote, 1, 0);
    if (got > 0) return got;
    if (fd_ < 0) {
      std::string p = "/proc/" + std::to_string(pid_) + "/mem";
      fd_ = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd_ < 0) return -1;
    }
    return ::pread(fd_, out, n, static_cast<off_t>(addr));
  }
  bool Word(uint64_t addr, uint64_t& out) { return Read(addr, &out, sizeof out) == sizeof out; }
  bool String(uint64_t addr, std::string& out, size_t& budget) {
    out.clear();
    char buf[4096];
    while (out.size() < kMaxString) {
      ssize_t n = Read(addr + out.size(), buf, sizeof buf);
      if (n <= 0) return false;
      const char* nul = static_cast<const char*>(std::memchr(buf, 0, static_cast<size_t>(n)));
      size_t take = nul ? static_cast<size_t>(nul - buf) : static_cast<size_t>(n);
      if (take + 1 > budget) return false;
      budget -= take + 1;
      out.append(buf, take);
      if (nul) return true;
    }
    return false;
  }

 private:
  pid_t pid_;
  int fd_ = -1;
};

std::string Link(const std::string& path) {
  char buf[4096];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

}  // namespace

bool ReadExec(pid_t pid, policy::ExecFacts& out, std::string& file) {
  user_regs_struct r;
  if (::ptrace(PTRACE_GETREGS, pid, 0, &r) != 0) return false;
  int dirfd = AT_FDCWD, flags = 0;
  uint64_t pathp = r.rdi, argvp = r.rsi;
  if (r.orig_rax == __NR_execveat) {
    dirfd = static_cast<int>(r.rdi);
    pathp = r.rsi;
    argvp = r.rdx;
    flags = static_cast<int>(r.r8);
  } else if (r.orig_rax != __NR_execve) {
    return false;  // another ABI's execve (guard.h): refused
  }
  Memory mem(pid);
  size_t budget = kMaxTotal;
  std::string path;
  if (!mem.String(pathp, path, budget)) return false;
  out.argv.clear();
  for (size_t i = 0; argvp; ++i) {
    uint64_t p = 0;
    if (i >= kMaxArgs || !mem.Word(argvp + 8 * i, p)) return false;
    if (!p) break;
    std::string a;
    if (!mem.String(p, a, budget)) return false;
    out.argv.push_back(std::move(a));
  }
  std::string proc = "/proc/" + std::to_string(pid);
  if (path.empty() && (flags & AT_EMPTY_PATH)) {
    file = proc + "/fd/" + std::to_string(dirfd);  // fexecve: the open file, whatever its name
    out.path = Link(file);
  } else if (!path.empty() && path.front() == '/') {
    file = out.path = path;
  } else {
    std::string dir = dirfd == AT_FDCWD ? proc + "/cwd" : proc + "/fd/" + std::to_string(dirfd);
    file = dir + "/" + path;
    out.path = Link(dir) + "/" + path;
  }
  // /proc/self/fd/N, /dev/fd/N...: the tracee's, not ours (InTracee); named by what they link to.
  if (std::string mine = InTracee(out.path, pid); mine != out.path) {
    file = mine;
    if (std::string target = Link(mine); !target.empty()) out.path = target;
  }
  return true;
}

bool FailSyscall(pid_t pid, int err) {
  user_regs_struct r;
  if (::ptrace(PTRACE_GETREGS, pid, 0, &r) != 0) return false;
  r.orig_rax = static_cast<uint64_t>(-1);
  r.rax = static_cast<uint64_t>(-err);
  return ::ptrace(PTRACE_SETREGS, pid, 0, &r) == 0;
}

}  // namespace sandshim::guard
