#include "shim/core/proc.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "shim/core/fs.h"

namespace sandshim::proc {

Result<uint64_t> ParseStartTime(const std::string& stat_text) {
  // The command name (field 2) may hold spaces and parentheses: fields are counted after
  // the last ')'. Field 3 (state) follows it, so start time (22) is the 20th after it.
  auto close = stat_text.rfind(')');
  if (close == std::string::npos) return MakeError("malformed /proc stat line", EINVAL);
  std::size_t pos = close + 1;
  for (int field = 3; field <= 22; ++field) {
    while (pos < stat_text.size() && stat_text[pos] == ' ') ++pos;
    std::size_t end = stat_text.find(' ', pos);
    if (end == std::string::npos) end = stat_text.size();
    if (pos >= end) return MakeError("malformed /proc stat line", EINVAL);
    if (field == 22) return std::strtoull(stat_text.substr(pos, end - pos).c_str(), nullptr, 10);
    if (field == 3 && stat_text.compare(pos, end - pos, "Z") == 0)
      return MakeError("process is a zombie", ESRCH);
    pos = end;
  }
  return MakeError("malformed /proc stat line", EINVAL);
}

Result<uint64_t> StartTime(pid_t pid) {
  auto text = fs::ReadFile("/proc/" + std::to_string(pid) + "/stat");
  if (!text) return MakeError("process " + std::to_string(pid) + " not found", ESRCH);
  return ParseStartTime(*text);
}

bool IsAlive(const ProcessId& p) {
  if (p.pid <= 0) return false;
  auto start = StartTime(p.pid);
  if (!start) return false;
  return p.start == 0 || *start == p.start;
}

ProcessId Self() {
  pid_t pid = ::getpid();
  auto start = StartTime(pid);
  return ProcessId{pid, start ? *start : 0};
}

std::vector<std::string> Cmdline(pid_t pid) {
  std::vector<std::string> argv;
  auto text = fs::ReadFile("/proc/" + std::to_string(pid) + "/cmdline");
  if (!text) return argv;
  std::size_t pos = 0;
  while (pos < text->size()) {
    std::size_t end = text->find('\0', pos);
    if (end == std::string::npos) end = text->size();
    argv.emplace_back(text->substr(pos, end - pos));
    pos = end + 1;
  }
  return argv;
}

std::vector<pid_t> AllPids() {
  std::vector<pid_t> pids;
  DIR* d = ::opendir("/proc");
  if (!d) return pids;
  while (auto* e = ::readdir(d)) {
    char* end = nullptr;
    long v = std::strtol(e->d_name, &end, 10);
    if (end && *end == '\0' && v > 0) pids.push_back(static_cast<pid_t>(v));
  }
  ::closedir(d);
  return pids;
}

void BecomeSubreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

void OpenMissingStdio() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
    int n = ::open("/dev/null", O_RDWR);  // the lowest free number: fd itself
    if (n >= 0 && n != fd) ::close(n);
  }
}

DetachedStdio::DetachedStdio() {
  int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null < 0) return;  // OpenMissingStdio ran at start; nothing better to hand over
  for (int fd = 0; fd <= 2; ++fd) {
    saved_[fd] = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (saved_[fd] >= 0) ::dup2(null, fd);
  }
  ::close(null);
  // Our own fds are already close-on-exec; this catches what the caller left open for us.
  ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
}

DetachedStdio::~DetachedStdio() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (saved_[fd] < 0) continue;
    ::dup2(saved_[fd], fd);
    ::close(saved_[fd]);
  }
}

}  // namespace sandshim::proc
