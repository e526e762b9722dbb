// Included by run.cc inside its anonymous namespace (its syscall stubs, Say, EndAs, Exit):
// the direct path. Where the Sentry lets a process setns() into another's network and IPC namespaces
// (runsc 2024; 2022 answers EOPNOTSUPP, measured: docs/CONTEXTS.md), the client enters the
// broker's namespaces itself and the command starts here, with no hand-off to the broker:
//   - the exec keeps what it starts (the default context): the client becomes the command
//     (one process start, as a plain exec: its pid, signals and status are the command's own);
//   - a named context's --keep exec (a lifeline): the client forks the command and stays its
//     parent, only to end it (alone) when the caller goes; what it started stays;
//   - a named context's exec ends what it starts: the client stays as the command's parent,
//     a sub-reaper (PR_SET_CHILD_SUBREAPER, which 2024 allows a non-init process), so every
//     orphan of the command's, a setsid'd daemon included, becomes its child; when the
//     command ends it kills its children until it has none, then ends as the command did.
// The exec gives the client, beside the exec's capabilities, the ones the context's init
// holds for itself (what it needs here: setns, the user, the bounding set); --drop-caps names
// them, and the command never gets them (nor does the broker's request: PutCredentials).

constexpr long kCLONE_NEWNET = 0x40000000, kCLONE_NEWIPC = 0x08000000, kSIGCHLD = 17, kWNOHANG = 1, kECHILD = 10, kENOENT_ = 2, kENOTDIR = 20;
constexpr int kO_DIRECTORY = 0200000, kSIG_SETMASK = 2;
constexpr unsigned long kTIOCSCTTY = 0x540E;

// The broker's pid from its file, or 0.
long BrokerPid() {
  char buf[16];
  int fd = static_cast<int>(Sys(__NR_openat, kAT_FDCWD, reinterpret_cast<long>("/tmp/.sshim/broker.pid"), kO_RDONLY | kO_CLOEXEC));
  if (fd < 0) return 0;
  long n = Sys(__NR_read, fd, reinterpret_cast<long>(buf), sizeof(buf) - 1);
  Sys(__NR_close, fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  uint32_t pid = 0;
  return ParseU32(buf, pid) ? pid : 0;
}

// Into one of the broker's namespaces (NAME: "net", "ipc"): 0 entered, -1 the namespace file
// could not be opened (a broker gone, no descriptor free), -2 the Sentry refused the setns.
int EnterBrokerNs(long pid, const char* name, long type) {
  char path[40] = "/proc/";
  size_t n = 6;
  char digits[12];
  int d = 0;
  for (long v = pid; v; v /= 10) digits[d++] = static_cast<char>('0' + v % 10);
  while (d) path[n++] = digits[--d];
  memcpy(path + n, "/ns/", 4);
  n += 4;
  for (const char* c = name; *c; ++c) path[n++] = *c;
  path[n] = 0;
  int fd = static_cast<int>(Sys(__NR_openat, kAT_FDCWD, reinterpret_cast<long>(path), kO_RDONLY | kO_CLOEXEC));
  if (fd < 0) return -1;
  long rc = Sys(__NR_setns, fd, type);
  Sys(__NR_close, fd);
  return rc == 0 ? 0 : -2;
}

// Into the broker's network and SysV IPC namespaces (both the context's own: broker.cc);
// false where the Sentry refuses either (the broker's path then: it forks the command in both).
// Refused once, refused for good (the Sentry's): the pid file goes, and every later exec's
// client tries one open that fails instead of six calls, each a trip through the Sentry
// (runsc 2022: docs/BENCHMARKS.md). (The broker cannot ask for us: its own setns is refused
// on runsc 2024 too, where ours, from outside its namespaces, is let through.)
bool EnterBrokerNamespaces() {
  long pid = BrokerPid();
  if (pid <= 0) return false;
  int rc = EnterBrokerNs(pid, "net", kCLONE_NEWNET);
  if (rc == 0) rc = EnterBrokerNs(pid, "ipc", kCLONE_NEWIPC);
  if (rc == 0) return true;
  // Only the Sentry's refusal is for good; a file that would not open says nothing of it.
  if (rc == -2) Sys(__NR_unlink, reinterpret_cast<long>("/tmp/.sshim/broker.pid"));
  return false;
}

// The exec's user and capabilities, its directory, then the command (PATH searched as
// execvp does). Only returns by exiting.
[[noreturn, gnu::cold]] void BecomeCommand(const char* cwd, char** argv, char** envp, bool tty) {
  uint64_t none = 0;
  Sys(__NR_rt_sigprocmask, kSIG_SETMASK, reinterpret_cast<long>(&none), 0, 8);
  if (tty) {  // (the client let go of the terminal: the command's session takes it)
    Sys(__NR_setsid);
    Sys(__NR_ioctl, 0, kTIOCSCTTY, 0);
  }
  const Creds& c = g_creds;
  for (int cap = 0; cap < 64; ++cap)
    if (((c.drop & c.bound) >> cap) & 1) Sys(__NR_prctl, PR_CAPBSET_DROP, cap, 0, 0, 0);
  if (Sys(__NR_setgroups, c.ngroups, reinterpret_cast<long>(c.groups)) != 0 || Sys(__NR_setresgid, c.gid, c.gid, c.gid) != 0 ||
      Sys(__NR_prctl, PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0 || Sys(__NR_setresuid, c.uid, c.uid, c.uid) != 0) {
    Say("setting the exec's user failed");
    Exit(125);
  }
  __user_cap_header_struct h{_LINUX_CAPABILITY_VERSION_3, 0};
  uint64_t inh = c.inh | c.amb;
  __user_cap_data_struct data[2] = {
      {static_cast<uint32_t>(c.eff), static_cast<uint32_t>(c.perm), static_cast<uint32_t>(inh)},
      {static_cast<uint32_t>(c.eff >> 32), static_cast<uint32_t>(c.perm >> 32), static_cast<uint32_t>(inh >> 32)}};
  if (long rc = Sys(__NR_capset, reinterpret_cast<long>(&h), reinterpret_cast<long>(data)); rc != 0) {
    Say("capabilities", "", -rc);
    Exit(125);
  }
  for (int cap = 0; cap < 64; ++cap)
    if ((c.amb >> cap) & 1) Sys(__NR_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0);
  Sys(__NR_prctl, PR_SET_KEEPCAPS, 0, 0, 0, 0);
  if (long rc = Sys(__NR_chdir, reinterpret_cast<long>(cwd)); rc != 0) {
    Say("working directory ", cwd, -rc);
    Exit(1);  // (a direct exec's failure: sandshim's error, exit 1)
  }
  const char* cmd = argv[0];
  long err = -kENOENT_;
  bool slash = false;
  for (const char* p = cmd; *p; ++p) slash = slash || *p == '/';
  if (slash) {
    err = Sys(__NR_execve, reinterpret_cast<long>(cmd), reinterpret_cast<long>(argv), reinterpret_cast<long>(envp));
  } else {
    const char* path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    for (char** e = envp; *e; ++e)
      if ((*e)[0] == 'P' && (*e)[1] == 'A' && (*e)[2] == 'T' && (*e)[3] == 'H' && (*e)[4] == '=') path = *e + 5;
    static char full[4096];
    for (const char* p = path;;) {
      size_t k = 0;
      while (p[k] && p[k] != ':') ++k;
      size_t n = 0;
      if (k == 0) full[n++] = '.';
      for (size_t i = 0; i < k && n < sizeof(full) - 2; ++i) full[n++] = p[i];
      full[n++] = '/';
      for (const char* q = cmd; *q && n < sizeof(full) - 1; ++q) full[n++] = *q;
      full[n] = '\0';
      long rc = Sys(__NR_execve, reinterpret_cast<long>(full), reinterpret_cast<long>(argv), reinterpret_cast<long>(envp));
      if (rc != -kENOENT_ && rc != -kENOTDIR) err = rc;  // (a later directory may still have it)
      if (!p[k]) break;
      p += k + 1;
    }
  }
  Say(cmd, err == -kENOENT_ ? ": command not found" : ": cannot execute", err == -kENOENT_ ? 0 : -err);
  Exit(err == -kENOENT_ ? 127 : 126);
}

// SIGKILL to every process whose parent we are (a sub-reaper's: the command's whole tree once
// its parents are gone); true if there was one. /proc/<pid>/stat's fourth field.
[[gnu::cold]] bool KillChildren(long self) {
  int dir = static_cast<int>(Sys(__NR_openat, kAT_FDCWD, reinterpret_cast<long>("/proc"), kO_RDONLY | kO_DIRECTORY | kO_CLOEXEC));
  if (dir < 0) return false;
  bool any = false;
  static char ents[8192];
  for (;;) {
    long n = Sys(__NR_getdents64, dir, reinterpret_cast<long>(ents), sizeof(ents));
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      auto* name = ents + at + 19;  // struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name
      uint16_t reclen;
      memcpy(&reclen, ents + at + 16, 2);
      at += reclen;
      uint32_t pid;
      if (!ParseU32(name, pid)) continue;
      char path[40] = "/proc/", stat[512];
      size_t k = 6;
      for (const char* q = name; *q && k < 30; ++q) path[k++] = *q;
      memcpy(path + k, "/stat", 6);
      int fd = static_cast<int>(Sys(__NR_openat, kAT_FDCWD, reinterpret_cast<long>(path), kO_RDONLY | kO_CLOEXEC));
      if (fd < 0) continue;
      long m = Sys(__NR_read, fd, reinterpret_cast<long>(stat), sizeof(stat) - 1);
      Sys(__NR_close, fd);
      if (m <= 0) continue;
      long close_paren = -1;
      for (long i = 0; i < m; ++i)
        if (stat[i] == ')') close_paren = i;
      if (close_paren < 0 || close_paren + 4 >= m || stat[close_paren + 2] == 'Z') continue;
      uint64_t ppid = 0;
      for (long i = close_paren + 4; i < m && stat[i] >= '0' && stat[i] <= '9'; ++i) ppid = ppid * 10 + static_cast<uint64_t>(stat[i] - '0');
      if (static_cast<long>(ppid) != self) continue;
      Sys(__NR_kill, pid, 9);
      any = true;
    }
  }
  Sys(__NR_close, dir);
  return any;
}

// The command ended: its leftovers go, until we have no child left, then we end as it did.
[[noreturn, gnu::cold]] void EndWithLeftovers(int status) {
  long self = Sys(__NR_getpid);
  for (int pass = 0; pass < 2000; ++pass) {
    bool any = KillChildren(self);
    int st;
    long w;
    while ((w = Sys(__NR_wait4, -1, reinterpret_cast<long>(&st), kWNOHANG, 0)) > 0) {
    }
    if (w == -kECHILD) break;
    if (!any) {  // (killed ones still on their way out)
      Timespec nap{0, 1000 * 1000};
      Sys(__NR_nanosleep, reinterpret_cast<long>(&nap), 0);
    }
  }
  EndAs(status);
}

// The command's side of SpawnVm: what TryDirect hands it, set before the clone (the child
// shares our memory and we sleep until it execs).
struct CommandArgs {
  const char* cwd;
  char** argv;
  char** envp;
  bool tty;
};
CommandArgs g_command;
alignas(16) char g_command_stack[64 * 1024];
[[noreturn, gnu::cold]] void CommandChild() {
  if (!g_command.tty) Sys(__NR_setsid);  // (a session of its own, as the broker's children have)
  BecomeCommand(g_command.cwd, g_command.argv, g_command.envp, g_command.tty);
}

// The direct path once in the broker's namespaces. Cold: its code lies apart from the broker
// path's, whose pages (each first touch a fault through the Sentry) it no longer spreads over.
[[noreturn, gnu::cold]] void RunDirect(const char* cwd, char** argv, char** envp, bool end, bool tty, int sigfd,
                                       uint64_t forwarded) {
  // Keeping what it starts, with nobody to watch for (no lifeline: the default context, an
  // older sandshim): become the command (our terminal stays the command's, as a plain
  // exec's). With a lifeline (a named context's --keep) we stay as its parent, to end it
  // alone when the caller goes; what it started is not ours to end (no sub-reaper).
  if (!end && g_lifeline < 0) BecomeCommand(cwd, argv, envp, false);
  if (end) Sys(__NR_prctl, PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  Sys(__NR_prctl, PR_SET_DUMPABLE, 0, 0, 0, 0);  // (root, with the init's capabilities: not the command's to read)
  uint64_t mask = forwarded | (uint64_t{1} << (kSIGCHLD - 1));
  Sys(__NR_rt_sigprocmask, kSIG_BLOCK, reinterpret_cast<long>(&mask), 0, 8);
  if (Sys(__NR_signalfd4, sigfd, reinterpret_cast<long>(&mask), 8, kSFD_CLOEXEC) < 0) Exit(125);
  if (tty) {  // the command's session takes the terminal: we let go (its hangup ignored)
    KSigaction ign{1, 0, 0, 0}, dfl{0, 0, 0, 0};
    Sys(__NR_rt_sigaction, kSIGHUP, reinterpret_cast<long>(&ign), 0, 8);
    Sys(__NR_ioctl, 0, kTIOCNOTTY, 0);
    Sys(__NR_rt_sigaction, kSIGHUP, reinterpret_cast<long>(&dfl), 0, 8);
  }
  g_command = {cwd, argv, envp, tty};
  // (clone_vm.h: the child shares our memory, we sleep until it execs: no copy of ours)
  long child = sandshim::rawsys::SpawnVm(CommandChild, g_command_stack + sizeof(g_command_stack), true);
  if (child < 0) {
    Say("fork", "", -child);
    Exit(125);
  }
  for (;;) {
    PollFd lp[2] = {{sigfd, kPOLLIN, 0}, {g_lifeline, 0, 0}};
    if (Sys(__NR_poll, reinterpret_cast<long>(lp), 2, -1) < 0) continue;
    if (g_lifeline >= 0 && LifelineGone(lp[1].revents)) {  // nobody waits: the command goes (then its leftovers, unless kept)
      Sys(__NR_kill, child, 9);
      g_lifeline = -1;
    }
    if (!(lp[0].revents & kPOLLIN)) continue;
    SignalfdInfo info[8];
    long n = Sys(__NR_read, sigfd, reinterpret_cast<long>(info), sizeof(info));
    bool reap = false;
    for (long j = 0; j < n / static_cast<long>(sizeof(SignalfdInfo)); ++j) {
      if (info[j].signo == kSIGCHLD) reap = true;
      else Sys(__NR_kill, child, info[j].signo);
    }
    if (!reap) continue;
    int st;
    long w;
    while ((w = Sys(__NR_wait4, -1, reinterpret_cast<long>(&st), kWNOHANG, 0)) > 0)
      if (w == child && end) EndWithLeftovers(st);
      else if (w == child) EndAs(st);
  }
}

// Returns only where the Sentry refuses setns (the caller goes to the broker). sigfd holds the
// forwarded signals, blocked.
void TryDirect(const char* cwd, char** argv, char** envp, bool end, bool tty, int sigfd, uint64_t forwarded) {
  if (EnterBrokerNamespaces()) RunDirect(cwd, argv, envp, end, tty, sigfd, forwarded);
}
