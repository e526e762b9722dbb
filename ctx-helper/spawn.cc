#include "ctx-helper/spawn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace sandshim::ctx {
namespace {

// Where execve looks for argv[0], in order (built before fork: the child must not allocate).
std::vector<std::string> Candidates(const Request& r) {
  const std::string& cmd = r.argv[0];
  if (cmd.find('/') != std::string::npos) return {cmd};
  std::string path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  for (const auto& e : r.env)
    if (e.rfind("PATH=", 0) == 0) path = e.substr(5);
  std::vector<std::string> out;
  for (size_t at = 0; at <= path.size();) {
    auto colon = path.find(':', at);
    if (colon == std::string::npos) colon = path.size();
    std::string dir = path.substr(at, colon - at);
    out.push_back((dir.empty() ? "." : dir) + "/" + cmd);
    at = colon + 1;
  }
  return out;
}

// What the child has to undo before its execve, found once (SpawnSetup): the signals the
// broker ignores (a handler is reset by execve itself; an ignored signal stays ignored) and
// the broker's bounding set (a command drops what it has and the request does not name).
uint64_t g_ignored = 0;
uint64_t g_bound = ~0ull;

void Raw(const char* a, const char* b = "", const char* c = "") {
  for (const char* s : {"sandshim-ctx: ", a, b, c, "\n"}) (void)!::write(2, s, strlen(s));
}

// Child only: async-signal-safe calls, no allocation.
[[noreturn]] void Child(const Request& r, const int* fds, int nfds, char* const* argv, char* const* envp,
                        const std::vector<const char*>& candidates) {
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int s = 1; s < 64; ++s)
    if ((g_ignored >> s) & 1) ::signal(s, SIG_DFL);
  // Out of the way first (a received descriptor may have a number below nfds), then into place;
  // dup2 leaves the copies without close-on-exec.
  // (Most often every received number is above nfds already: straight into place, half the
  // syscalls, each a trip through the Sentry.)
  int high[kMaxClientFds];
  bool clash = false;
  for (int i = 0; i < nfds; ++i) clash = clash || fds[i] < nfds;
  for (int i = 0; i < nfds; ++i)
    if ((high[i] = clash ? ::fcntl(fds[i], F_DUPFD_CLOEXEC, kMaxClientFds) : fds[i]) < 0) ::_exit(125);
  for (int i = 0; i < nfds; ++i)
    if (::dup2(high[i], i) < 0) ::_exit(125);
  // A session of its own, whose id is the command's pid: what the command starts and lets go
  // of (a double fork: its parent gone, it is init's child) stays in it, where KillTree finds
  // it. (PR_SET_CHILD_SUBREAPER would keep orphans in the tree; this gVisor refuses it: EINVAL.)
  ::setsid();
  // (Best effort, as a direct exec: the Sentry's exec terminal may not take it.)
  if (r.tty && ::ioctl(0, TIOCSCTTY, 0) != 0) (void)::ioctl(0, TIOCSCTTY, 1);
  uint64_t drop = g_bound & ~r.cap_bound;
  for (int c = 0; c < 64; ++c)
    if ((drop >> c) & 1) (void)::prctl(PR_CAPBSET_DROP, c, 0, 0, 0);
  if (::syscall(SYS_setgroups, r.groups.size(), r.groups.data()) != 0 || ::syscall(SYS_setresgid, r.gid, r.gid, r.gid) != 0 ||
      ::prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0 || ::syscall(SYS_setresuid, r.uid, r.uid, r.uid) != 0) {
    Raw("user: ", strerror(errno));
    ::_exit(125);
  }
  // The exec's capability sets; the ambient ones need to be inheritable as well.
  __user_cap_header_struct h{_LINUX_CAPABILITY_VERSION_3, 0};
  uint64_t inh = r.cap_inh | r.cap_amb;
  __user_cap_data_struct d[2] = {
      {static_cast<uint32_t>(r.cap_eff), static_cast<uint32_t>(r.cap_perm), static_cast<uint32_t>(inh)},
      {static_cast<uint32_t>(r.cap_eff >> 32), static_cast<uint32_t>(r.cap_perm >> 32), static_cast<uint32_t>(inh >> 32)}};
  if (::syscall(SYS_capset, &h, d) != 0) {
    Raw("capabilities: ", strerror(errno));
    ::_exit(125);
  }
  for (int c = 0; c < 64; ++c)
    if ((r.cap_amb >> c) & 1) (void)::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c, 0, 0);
  (void)::prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
  if (r.no_new_privs) (void)::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  if (::chdir(r.cwd.c_str()) != 0) {
    Raw("working directory ", r.cwd.c_str(), errno == ENOENT ? ": no such directory" : ": not accessible");
    ::_exit(1);  // (a direct exec's failure: sandshim's error, exit 1)
  }
  int err = ENOENT;
  for (const char* path : candidates) {
    ::execve(path, argv, envp);
    if (errno != ENOENT && errno != ENOTDIR) err = errno;  // (a later directory may still have it)
  }
  Raw(argv[0], err == ENOENT ? ": command not found" : ": cannot execute: ", err == ENOENT ? "" : strerror(err));
  ::_exit(err == ENOENT ? 127 : 126);
}

std::vector<char*> Pointers(const std::vector<std::string>& v) {
  std::vector<char*> out;
  for (const auto& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

struct ChildArgs {
  const Request* r;
  const int* fds;
  int nfds;
  char* const* argv;
  char* const* envp;
  const std::vector<const char*>* candidates;
};

int ChildEntry(void* p) {
  auto* a = static_cast<ChildArgs*>(p);
  Child(*a->r, a->fds, a->nfds, a->argv, a->envp, *a->candidates);
}

// The child's stack: the broker is single-threaded and stays suspended until the child has
// exec'd or died (CLONE_VFORK), so one is enough.
alignas(64) char g_child_stack[256 * 1024];

}  // namespace

void SpawnSetup() {
  g_ignored = 0;
  for (int s = 1; s < 64 && s < NSIG; ++s) {
    struct sigaction sa{};
    if (::sigaction(s, nullptr, &sa) == 0 && sa.sa_handler == SIG_IGN) g_ignored |= uint64_t{1} << s;
  }
  g_bound = 0;
  for (int c = 0; c < 64; ++c) {
    int b = ::prctl(PR_CAPBSET_READ, c, 0, 0, 0);
    if (b < 0) break;
    if (b) g_bound |= uint64_t{1} << c;
  }
}

pid_t Spawn(const Request& r, const int* fds, int nfds) {
  auto argv = Pointers(r.argv);
  auto envp = Pointers(r.env);
  auto names = Candidates(r);
  std::vector<const char*> candidates;
  for (const auto& n : names) candidates.push_back(n.c_str());
  // CLONE_VM|CLONE_VFORK, as posix_spawn: no copy of the broker's address space (a fork in
  // the Sentry costs about as much as the exec that follows). The child only makes syscalls.
  ChildArgs args{&r, fds, nfds, argv.data(), envp.data(), &candidates};
  pid_t pid = ::clone(ChildEntry, g_child_stack + sizeof(g_child_stack), CLONE_VM | CLONE_VFORK | SIGCHLD, &args);
  int err = errno;
  for (int i = 0; i < nfds; ++i) ::close(fds[i]);
  return pid > 0 ? pid : -err;
}

namespace {

// Every live process of the command's: under root (children by ppid) or in its session
// (root's pid: Child's setsid), whoever its parent is now; root itself and zombies (dead
// already; their parent reaps them) left out. One reading of /proc.
std::vector<pid_t> Members(pid_t root) {
  std::map<pid_t, std::vector<pid_t>> children;
  std::vector<pid_t> out;
  if (DIR* d = ::opendir("/proc")) {
    while (dirent* e = ::readdir(d)) {
      pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
      if (pid <= 0 || pid == root) continue;
      char path[64], buf[512];
      snprintf(path, sizeof(path), "/proc/%d/stat", pid);
      int fd = ::open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
      ::close(fd);
      if (n <= 0) continue;
      buf[n] = '\0';
      const char* paren = strrchr(buf, ')');  // the command name may hold spaces and ')'
      int ppid = 0, pgrp = 0, session = 0;
      char state;
      if (!paren || sscanf(paren + 1, " %c %d %d %d", &state, &ppid, &pgrp, &session) != 4 || state == 'Z') continue;
      children[ppid].push_back(pid);
      if (session == root) out.push_back(pid);
    }
    ::closedir(d);
  }
  std::vector<pid_t> todo{root};
  while (!todo.empty()) {
    pid_t p = todo.back();
    todo.pop_back();
    for (pid_t c : children[p]) {
      if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
      todo.push_back(c);
    }
  }
  return out;
}

}  // namespace

void KillTree(pid_t root) {
  // Until a reading of /proc shows nothing of the command's we have not killed: a process
  // forked while we read is caught by the next pass. Then the root and its process group.
  std::vector<pid_t> killed;
  for (int pass = 0; pass < 32; ++pass) {
    bool fresh = false;
    for (pid_t p : Members(root)) {
      if (std::find(killed.begin(), killed.end(), p) != killed.end()) continue;
      ::kill(p, SIGKILL);
      killed.push_back(p);
      fresh = true;
    }
    if (!fresh) break;
  }
  ::kill(-root, SIGKILL);
  ::kill(root, SIGKILL);
}

}  // namespace sandshim::ctx
