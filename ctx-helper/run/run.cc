// sandshim-ctx-run: what a session exec into a gVisor context runs (docs/CONTEXTS.md, "The
// context broker"), bound read-only at /.sshim/run:
//   /.sshim/run --uid U --gid G [--groups G,...] --cwd DIR [--end-leftovers] -- CMD [ARG]...
// as root with the exec's capabilities, environment and stdio. The exec lands in the
// sandbox's root network namespace, so the command cannot start here: the context's broker
// forks it with our stdio. We stand in for it: the signals we get go to it (through the
// broker), and we end as it ended (its code, or its fatal signal raised on ourselves).
//
// Why no libc: this is a process start on every exec in a context, and in the Sentry a static
// glibc program's start alone (its relocations, TLS, the pages it touches, each a trap) cost
// about 1.5 ms more than a program's that makes its syscalls itself (measured: 2.2 vs 0.6 ms
// per start, docs/CONTEXTS.md "Cost"). So: raw syscalls, no allocation, few calls; the
// request format is wire.h's, written here by hand. Everything it does is the old client's
// (ctx-helper/client.cc before this file), call for call where it mattered.
#include <asm/unistd.h>
#include <linux/capability.h>
#include <linux/prctl.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "ctx-helper/clone_vm.h"

namespace {

// ---- syscalls -------------------------------------------------------------------------
using sandshim::rawsys::Sys;  // (ctx-helper/clone_vm.h, shared with exec-guard)

// The kernel's numbers and layouts (uapi; the ones its headers do not give without libc).
constexpr long kEINTR = 4, kENOENT = 2, kECONNREFUSED = 111;
constexpr int kAT_FDCWD = -100, kO_RDONLY = 0, kO_CLOEXEC = 02000000;
constexpr int kF_GETFD = 1, kF_SETFD = 2, kFD_CLOEXEC = 1, kSOCK_STREAM = 1, kSOCK_CLOEXEC = 02000000, kAF_UNIX = 1;
constexpr int kSOL_SOCKET = 1, kSCM_RIGHTS = 1, kMSG_NOSIGNAL = 0x4000;
constexpr int kSIG_BLOCK = 0, kSIG_UNBLOCK = 1, kSFD_CLOEXEC = 02000000;
constexpr short kPOLLIN = 1, kPOLLERR = 8, kPOLLHUP = 16;
constexpr unsigned long kTCGETS = 0x5401, kTIOCNOTTY = 0x5422;
constexpr int kSIGHUP = 1, kRLIMIT_CORE = 4;
constexpr int kForwarded[] = {2 /*INT*/, 15 /*TERM*/, 1 /*HUP*/, 3 /*QUIT*/, 10 /*USR1*/,
                              12 /*USR2*/, 28 /*WINCH*/, 18 /*CONT*/, 20 /*TSTP*/};

struct KSigaction {
  unsigned long handler;  // 0: SIG_DFL, 1: SIG_IGN (no handler of ours: no restorer needed)
  unsigned long flags;
  unsigned long restorer;
  uint64_t mask;
};
struct IoVec {
  void* base;
  size_t len;
};
struct MsgHdr {
  void* name;
  int namelen;
  IoVec* iov;
  size_t iovlen;
  void* control;
  size_t controllen;
  unsigned flags;
};
struct CmsgHdr {
  size_t len;
  int level, type;
};
struct SockaddrUn {
  uint16_t family;
  char path[108];
};
struct PollFd {
  int fd;
  short events, revents;
};
struct SignalfdInfo {  // struct signalfd_siginfo: 128 bytes, the number first
  uint32_t signo;
  char rest[124];
};
struct Timespec {
  long sec, nsec;
};
struct RLimit {
  uint64_t cur, max;
};

extern "C" void* memcpy(void* d, const void* s, size_t n) {
  auto* dp = static_cast<char*>(d);
  auto* sp = static_cast<const char*>(s);
  while (n--) *dp++ = *sp++;
  return d;
}
extern "C" void* memset(void* d, int c, size_t n) {
  auto* dp = static_cast<char*>(d);
  while (n--) *dp++ = static_cast<char>(c);
  return d;
}

size_t Len(const char* s) {
  size_t n = 0;
  while (s[n]) ++n;
  return n;
}
bool Eq(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

[[noreturn]] void Exit(int code) {
  for (;;) Sys(__NR_exit_group, code);
}

void Say(const char* a, const char* b = "", long err = 0) {
  char line[512];
  size_t n = 0;
  for (const char* s : {"sandshim-ctx: ", a, b})
    for (; *s && n < sizeof(line) - 32; ++s) line[n++] = *s;
  if (err) {  // errno as its number (no strerror without libc)
    const char* e = ": errno ";
    while (*e) line[n++] = *e++;
    char digits[12];
    int d = 0;
    for (unsigned long v = static_cast<unsigned long>(err); v || d == 0; v /= 10) digits[d++] = static_cast<char>('0' + v % 10);
    while (d) line[n++] = digits[--d];
  }
  line[n++] = '\n';
  Sys(__NR_write, 2, reinterpret_cast<long>(line), static_cast<long>(n));
}

bool WriteAll(int fd, const char* p, size_t len) {
  while (len > 0) {
    long n = Sys(__NR_sendto, fd, reinterpret_cast<long>(p), static_cast<long>(len), kMSG_NOSIGNAL, 0, 0);
    if (n == -kEINTR) continue;
    if (n <= 0) return false;
    p += n;
    len -= static_cast<size_t>(n);
  }
  return true;
}

bool ReadAll(int fd, char* p, size_t len) {
  while (len > 0) {
    long n = Sys(__NR_read, fd, reinterpret_cast<long>(p), static_cast<long>(len));
    if (n == -kEINTR) continue;
    if (n <= 0) return false;
    p += n;
    len -= static_cast<size_t>(n);
  }
  return true;
}

bool ParseU32(const char* s, uint32_t& out) {
  uint64_t v = 0;
  if (!*s) return false;
  for (; *s; ++s) {
    if (*s < '0' || *s > '9') return false;
    v = v * 10 + static_cast<uint64_t>(*s - '0');
    if (v > 0xffffffffull) return false;
  }
  out = static_cast<uint32_t>(v);
  return true;
}

[[noreturn]] void Usage() {
  Say("usage: /.sshim/run --uid U --gid G [--groups G,...] --cwd DIR [--end-leftovers] [--lifeline FD] -- CMD [ARG]...");
  Exit(125);
}

#include "direct_creds.h"
#include "request.h"

// As the command ended: its code, or its signal (no core file of ours).
[[noreturn]] void EndAs(int status) {
  if ((status & 0x7f) == 0) Exit((status >> 8) & 0xff);
  int sig = status & 0x7f;
  RLimit none{0, 0};
  Sys(__NR_prlimit64, 0, kRLIMIT_CORE, reinterpret_cast<long>(&none), 0);
  KSigaction dfl{0, 0, 0, 0};
  Sys(__NR_rt_sigaction, sig, reinterpret_cast<long>(&dfl), 0, 8);
  uint64_t one = uint64_t{1} << (sig - 1);
  Sys(__NR_rt_sigprocmask, kSIG_UNBLOCK, reinterpret_cast<long>(&one), 0, 8);
  Sys(__NR_kill, Sys(__NR_getpid), sig);
  Exit(128 + sig);
}

#include "args.h"
#include "direct.h"

// The signals we forward wait, blocked, in a signalfd until the command has a pid. Returns
// the signalfd (or -1, said why) and sets forwarded to their mask.
int ForwardedSignalFd(uint64_t& forwarded) {
  forwarded = 0;
  for (int s : kForwarded) forwarded |= uint64_t{1} << (s - 1);
  Sys(__NR_rt_sigprocmask, kSIG_BLOCK, reinterpret_cast<long>(&forwarded), 0, 8);
  int sigfd = static_cast<int>(Sys(__NR_signalfd4, -1, reinterpret_cast<long>(&forwarded), 8, kSFD_CLOEXEC));
  if (sigfd < 0) {
    Say("signalfd", "", -sigfd);
    return -1;
  }
  return sigfd;
}

// A terminal can be the controlling terminal of one session only: ours lets go of it for the
// command's, ignoring the hangup that letting go sends us.
void LetGoOfTerminal() {
  KSigaction ign{1, 0, 0, 0}, dfl{0, 0, 0, 0};
  Sys(__NR_rt_sigaction, kSIGHUP, reinterpret_cast<long>(&ign), 0, 8);
  Sys(__NR_ioctl, 0, kTIOCNOTTY, 0);
  Sys(__NR_rt_sigaction, kSIGHUP, reinterpret_cast<long>(&dfl), 0, 8);
}

// A socket connected to the context's broker, or -1 (said why).
int ConnectBroker() {
  int sock = static_cast<int>(Sys(__NR_socket, kAF_UNIX, kSOCK_STREAM | kSOCK_CLOEXEC, 0));
  SockaddrUn a{};
  a.family = kAF_UNIX;
  memcpy(a.path, "/tmp/.sshim/broker.sock", sizeof("/tmp/.sshim/broker.sock"));
  long rc = sock < 0 ? sock : Sys(__NR_connect, sock, reinterpret_cast<long>(&a), sizeof(a));
  // A context just made: its container runs (runsc start returned) but its broker may not be
  // listening yet (fork, unshare, bind after the init starts): under load the first exec
  // after a create came here first (the contexts suite's "platform background process",
  // 1 in ~20 runs). Not there yet or not listening yet: again, 5 ms apart, for up to 10 s.
  // (The common case connects at once: no extra syscall.)
  for (int tries = 0; (rc == -kENOENT || rc == -kECONNREFUSED) && tries < 2000; ++tries) {
    Timespec nap{0, 5 * 1000 * 1000};
    Sys(__NR_nanosleep, reinterpret_cast<long>(&nap), 0);
    Sys(__NR_close, sock);  // (a fresh socket each time: no reliance on a failed one's state)
    sock = static_cast<int>(Sys(__NR_socket, kAF_UNIX, kSOCK_STREAM | kSOCK_CLOEXEC, 0));
    rc = sock < 0 ? sock : Sys(__NR_connect, sock, reinterpret_cast<long>(&a), sizeof(a));
  }
  if (rc != 0) {
    Say("the context's broker at /tmp/.sshim/broker.sock", "", -rc);
    return -1;
  }
  return sock;
}

// The header and the body in one message, the descriptors (0-2, and 3) with it: the broker
// most often finds the whole request there when it accepts (no second wake-up for the body).
// False: said why.
bool SendRequest(int sock, bool fd3) {
  uint32_t len = static_cast<uint32_t>(g_len);
  IoVec iov[2] = {{&len, sizeof(len)}, {g_body, g_len}};
  alignas(CmsgHdr) char control[sizeof(CmsgHdr) + 4 * sizeof(int)] = {};
  int nfds = fd3 ? 4 : 3;
  auto* c = reinterpret_cast<CmsgHdr*>(control);
  c->len = sizeof(CmsgHdr) + nfds * sizeof(int);
  c->level = kSOL_SOCKET;
  c->type = kSCM_RIGHTS;
  int fds[4] = {0, 1, 2, 3};
  memcpy(control + sizeof(CmsgHdr), fds, nfds * sizeof(int));
  MsgHdr m{};
  m.iov = iov;
  m.iovlen = 2;
  m.control = control;
  m.controllen = sizeof(CmsgHdr) + ((nfds * sizeof(int) + 7) & ~size_t{7});
  long rc;
  do rc = Sys(__NR_sendmsg, sock, reinterpret_cast<long>(&m), kMSG_NOSIGNAL);
  while (rc == -kEINTR);
  // What did not fit in the socket's buffer (a large environment) follows as it drains.
  size_t total = sizeof(len) + g_len;
  bool sent = rc >= static_cast<long>(sizeof(len)) &&
              WriteAll(sock, g_body + (static_cast<size_t>(rc) - sizeof(len)), total - static_cast<size_t>(rc));
  if (!sent) Say("sending the request to the broker", "", rc < 0 ? -rc : 0);
  return sent;
}

// One wake-up: the broker answers only when the command ended (or could not start). A
// signal that comes before the command runs goes on the socket after the request, where
// the broker reads it once it has started the command, and sends it on then. Returns our
// exit code, or ends as the command ended.
int AwaitEnd(int sock, int sigfd, bool end) {
  for (;;) {
    PollFd p[3] = {{sock, kPOLLIN, 0}, {sigfd, kPOLLIN, 0}, {g_lifeline, 0, 0}};
    long rc = Sys(__NR_poll, reinterpret_cast<long>(p), 3, -1);
    if (rc == -kEINTR) continue;
    if (rc < 0) return 125;
    if (g_lifeline >= 0 && LifelineGone(p[2].revents)) {
      if (end) return 137;  // the broker ends a gone client's tree
      // --keep: the command alone (a SIGKILL sent on as a forwarded signal); what it started
      // stays, kept by the broker when the command's end is reaped. Then we end as it did.
      g_lifeline = -1;
      unsigned char kill9 = 9;
      if (!WriteAll(sock, reinterpret_cast<char*>(&kill9), 1)) return 137;
    }
    if (p[1].revents & kPOLLIN) {
      SignalfdInfo info[8];
      long n = Sys(__NR_read, sigfd, reinterpret_cast<long>(info), sizeof(info));
      unsigned char sigs[8];
      int k = 0;
      for (long j = 0; j < n / static_cast<long>(sizeof(SignalfdInfo)); ++j) sigs[k++] = static_cast<unsigned char>(info[j].signo);
      if (k > 0) (void)WriteAll(sock, reinterpret_cast<char*>(sigs), static_cast<size_t>(k));  // the broker sends them on
    }
    if (!(p[0].revents & (kPOLLIN | kPOLLHUP | kPOLLERR))) continue;
    int32_t reply[2];  // wire.h's ReplyMsg: kind (1 pid: an older broker's, 2 status, 3 error), value
    if (!ReadAll(sock, reinterpret_cast<char*>(reply), sizeof(reply))) {
      Say("the context's broker went away before the command ended");
      return 255;
    }
    if (reply[0] == 2) EndAs(reply[1]);
    else if (reply[0] == 3) {
      Say("the broker could not start the command", "", reply[1]);
      return 125;
    }
  }
}

int Run(int argc, char** argv, char** envp) {
  ClientArgs args = ParseArgs(argc, argv);
  // The exec's fd 3, when sandshim gave it one (--shell's state report): the command gets it
  // too. Asked before this process opens anything, which would take the number.
  bool fd3 = g_lifeline != 3 && Sys(__NR_fcntl, 3, kF_GETFD) >= 0;
  PutHex(args.uid);
  PutHex(args.gid);
  PutGroups(args.groups);
  Put(args.cwd);
  // A terminal: the command's session takes it as its controlling terminal (LetGoOfTerminal).
  char termios[64];
  bool tty = Sys(__NR_ioctl, 0, kTCGETS, reinterpret_cast<long>(termios)) == 0;
  PutHex(static_cast<uint64_t>(tty) | (args.end ? 2 : 0));  // wire.h's flags: 1 terminal, 2 end leftovers
  PutCredentials();
  PutCommand(argv + args.first, argc - args.first, envp);
  if (g_overflow) {
    Say("the command's arguments and environment are larger than the broker takes");
    return 125;
  }
  uint64_t forwarded;
  int sigfd = ForwardedSignalFd(forwarded);
  if (sigfd < 0) return 125;
  g_creds.uid = args.uid, g_creds.gid = args.gid;
  TryDirect(args.cwd, argv + args.first, envp, args.end, tty, sigfd, forwarded);  // (returns where setns is refused)
  if (tty) LetGoOfTerminal();
  int sock = ConnectBroker();
  if (sock < 0 || !SendRequest(sock, fd3)) return 125;
  return AwaitEnd(sock, sigfd, args.end);
}

}  // namespace

// The entry: the kernel's initial stack holds argc, argv[], NULL, envp[], NULL.
extern "C" [[noreturn]] void RunEntry(long* stack) {
  int argc = static_cast<int>(stack[0]);
  char** argv = reinterpret_cast<char**>(stack + 1);
  char** envp = argv + argc + 1;
  Exit(Run(argc, argv, envp));
}

#if defined(__x86_64__)
__asm__(".text\n.global _start\n_start:\n  xor %rbp, %rbp\n  mov %rsp, %rdi\n  and $-16, %rsp\n  call RunEntry\n  hlt\n");
#elif defined(__aarch64__)
__asm__(".text\n.global _start\n_start:\n  mov x29, #0\n  mov x0, sp\n  bl RunEntry\n");
#endif
