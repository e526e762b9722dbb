// The broker: the inside half of a context's init. It makes the context's network namespace
// (the sandbox's exec lands in the root one, and gVisor has no setns on a network namespace,
// so only a process already inside can start the context's commands), then serves:
//  - execs: a root-only unix socket under the context's own /tmp; each request forks a command
//    here (spawn.h) and answers its wait status when it ends. A client that goes away first
//    (killed, e.g. by the session exec's timeout) takes the command's tree with it.
//  - egress: a port on the namespace's loopback whose connections the outside half carries to
//    the relay link (it alone is in the namespace that reaches it).
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <vector>

#include "ctx-helper/fdpass.h"
#include "ctx-helper/helper.h"
#include "ctx-helper/spawn.h"
#include "ctx-helper/sweep.h"

namespace sandshim::ctx {
namespace {

[[noreturn]] void Die(const char* what) {
  Say(std::string("broker: ") + what, errno);
  ::_exit(1);
}

// A new namespace's loopback is up on this netstack already (checked); where it is not, over
// rtnetlink (RTM_NEWLINK, which needs CAP_NET_ADMIN there): netstack refuses SIOCSIFFLAGS.
void LoopbackUp() {
  {
    int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ifreq ifr{};
    strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
    bool up = s >= 0 && ::ioctl(s, SIOCGIFFLAGS, &ifr) == 0 && (ifr.ifr_flags & IFF_UP);
    if (s >= 0) ::close(s);
    if (up) return;
  }
  unsigned index = ::if_nametoindex("lo");
  int s = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (index == 0 || s < 0) Die("loopback");
  struct {
    nlmsghdr h;
    ifinfomsg i;
  } req{};
  req.h.nlmsg_len = sizeof(req);
  req.h.nlmsg_type = RTM_NEWLINK;
  req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
  req.h.nlmsg_seq = 1;
  req.i.ifi_family = AF_UNSPEC;
  req.i.ifi_index = static_cast<int>(index);
  req.i.ifi_flags = IFF_UP;
  req.i.ifi_change = IFF_UP;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(s, &req, sizeof(req), 0, reinterpret_cast<sockaddr*>(&kernel), sizeof(kernel)) < 0) Die("loopback up");
  char buf[4096];
  ssize_t n = ::recv(s, buf, sizeof(buf), 0);
  auto* h = reinterpret_cast<nlmsghdr*>(buf);
  if (n < static_cast<ssize_t>(sizeof(nlmsghdr) + sizeof(nlmsgerr)) || h->nlmsg_type != NLMSG_ERROR) Die("loopback up: no answer");
  if (int err = reinterpret_cast<nlmsgerr*>(NLMSG_DATA(h))->error; err != 0) {
    errno = -err;
    Die("loopback up");
  }
  ::close(s);
}

// Whether this process runs under a seccomp filter (/proc/self/status "Seccomp:" not 0): the
// spec's, which runsc gives the init and the init's children inherit.
bool UnderSeccompFilter() {
  char buf[4096];
  int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  ssize_t n = fd < 0 ? -1 : ::read(fd, buf, sizeof(buf) - 1);
  if (fd >= 0) ::close(fd);
  if (n <= 0) return true;  // unknown: as if filtered (the broker's path loses nothing)
  buf[n] = 0;
  const char* line = strstr(buf, "\nSeccomp:");
  if (!line) return true;
  line += 9;
  while (*line == ' ' || *line == '\t') ++line;
  return *line != '0';
}

// The exec socket: a root-only directory (made before any user code runs here; one that is
// not ours is refused) and a 0600 socket.
int ExecListener() {
  if (::mkdir(kBrokerDir, 0700) != 0 && errno != EEXIST) Die("mkdir /tmp/.sshim");
  struct stat st;
  if (::lstat(kBrokerDir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0) Die("/tmp/.sshim is not root's directory");
  if (::chmod(kBrokerDir, 0700) != 0) Die("chmod /tmp/.sshim");
  // Where its namespace is (run.cc's direct path): written before the socket is there, so a
  // client that finds the socket finds it too. The first client the Sentry refuses setns
  // removes it (run/direct.h): the later ones then try nothing. Not offered where this broker
  // runs under the spec's seccomp filter: a command the client starts itself would have none
  // (a process the control server starts has no filter: docs/EXEC_SECCOMP.md), one the
  // broker forks inherits it.
  ::unlink(kBrokerPidFile);
  if (!UnderSeccompFilter()) {
    std::string pid = std::to_string(::getpid());
    int f = ::open(kBrokerPidFile, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (f < 0 || !WriteAll(f, pid.data(), pid.size())) Die("the pid file");
    ::close(f);
  }
  ::unlink(kBrokerSocket);
  int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  strncpy(a.sun_path, kBrokerSocket, sizeof(a.sun_path) - 1);
  if (s < 0 || ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) Die("bind the exec socket");
  if (::chmod(kBrokerSocket, 0600) != 0 || ::listen(s, 64) != 0) Die("listen on the exec socket");
  return s;
}

int EgressListener(uint16_t port) {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (s < 0 || ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 || ::listen(s, 128) != 0)
    Die("listen on the egress port");
  return s;
}

struct Exec {
  int conn;  // -1 once the client is gone
  pid_t pid;
  bool keep;  // what it starts may outlive it (session exec --keep, the default context, an older client)
};

void Answer(int conn, Reply kind, int32_t value) {
  ReplyMsg m{kind, value};
  (void)WriteAll(conn, &m, sizeof(m));
}

// A request names the capabilities its command gets, and root in the context can connect and
// write one itself: a command never gets the capabilities the init holds for the broker only
// (the session's spec does not give them), whatever the request says. (The asker's own sets
// cannot be read instead: this gVisor answers SO_PEERCRED on an accepted unix socket with the
// listener's pid, not the connecting process's.) So an exec's --cap-add of one of them is not
// honoured in a brokered context (docs/CONTEXTS.md).
void ClampCaps(Request& r, uint64_t init_caps) {
  for (auto* set : {&r.cap_perm, &r.cap_eff, &r.cap_inh, &r.cap_amb, &r.cap_bound}) *set &= ~init_caps;
}

// A client whose request is still coming. Requests are read as their bytes arrive, between
// everything else the broker does: a client that connects and sends nothing (or a part) holds
// up no other exec; it is dropped at its deadline.
struct Pending {
  int conn;
  std::chrono::steady_clock::time_point deadline;
  bool have_header = false;
  uint32_t size = 0;
  std::string body;
  int fds[kMaxClientFds];
  int nfds = 0;
  void CloseFds() {
    for (int i = 0; i < nfds; ++i) ::close(fds[i]);
    nfds = 0;
  }
};
// Time a client has to send its whole request (it sends it at once, right after connecting).
constexpr auto kRequestTime = std::chrono::seconds(10);
// Clients with requests under way at once; the oldest goes when one more connects.
constexpr size_t kMaxPending = 64;

// A client connected: root peers only (the directory is 0700 too).
bool Admit(int conn, std::vector<Pending>& pending) {
  ucred peer{};
  socklen_t len = sizeof(peer);
  if (::getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 || peer.uid != 0) return false;
  if (pending.size() >= kMaxPending) {
    pending.front().CloseFds();
    ::close(pending.front().conn);
    pending.erase(pending.begin());
  }
  pending.push_back({conn, std::chrono::steady_clock::now() + kRequestTime});
  return true;
}

// More of a pending request, as much as is there now. -1: refused or gone (the caller closes
// it), 0: more to come, 1: complete.
int ReadSome(Pending& q) {
  if (!q.have_header) {
    // The header and the descriptors come in one message (a split header is refused).
    long n = RecvWithFds(q.conn, &q.size, sizeof(q.size), q.fds, kMaxClientFds, &q.nfds, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
    if (n != static_cast<long>(sizeof(q.size)) || q.nfds < 3 || q.size > kMaxRequest) return -1;
    q.have_header = true;
    q.body.reserve(q.size);
  }
  char buf[65536];
  while (q.body.size() < q.size) {
    ssize_t n = ::recv(q.conn, buf, std::min<size_t>(sizeof(buf), q.size - q.body.size()), MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
    if (n <= 0) return -1;
    q.body.append(buf, static_cast<size_t>(n));
  }
  return 1;
}

// A complete request: its command started; false: refused (the connection is closed by the
// caller; the descriptors are closed here).
std::vector<pid_t> Roots(const std::vector<Exec>& execs) {
  std::vector<pid_t> roots;
  for (const auto& e : execs) roots.push_back(e.pid);
  return roots;
}

bool Serve(Pending& q, std::vector<Exec>& execs, uint64_t init_caps, Ledger& books) {
  Request r;
  if (!Decode(q.body, r)) {
    q.CloseFds();
    return false;
  }
  ClampCaps(r, init_caps);
  if (r.end_leftovers && !books.plain_seen) {  // (sweep.h: Ledger)
    KeepLeftovers(books.own, Roots(execs), books.kept);
    books.plain_seen = true;
  }
  pid_t pid = Spawn(r, q.fds, q.nfds);  // (closes them)
  q.nfds = 0;
  if (pid < 0) {
    Answer(q.conn, Reply::kError, -pid);
    return false;
  }
  // No kPid answer: the client needs none (a signal it forwards early waits on the socket,
  // behind the request, until this command is in execs), and one wake-up less for it.
  execs.push_back({q.conn, pid, !r.end_leftovers});
  return true;
}

// An exec's command ended: what it left ends too (sweep.h), before its client hears of it,
// so the exec returns once nothing of it runs; or, --keep, it is kept.
void EndExec(const Exec& done, const std::vector<Exec>& execs, Ledger& books) {
  bool plain_running = std::any_of(execs.begin(), execs.end(), [](const Exec& e) { return !e.keep; });
  if (!done.keep) EndLeftovers(books.own, Roots(execs), books.kept, plain_running ? done.pid : 0);
  else if (books.plain_seen) KeepLeftovers(books.own, Roots(execs), books.kept);
}

void Reap(std::vector<Exec>& execs, Ledger& books) {
  int status;
  pid_t pid;
  while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
    std::erase(books.own.pumps, pid);
    for (auto it = execs.begin(); it != execs.end(); ++it)
      if (it->pid == pid) {
        Exec done = *it;
        execs.erase(it);
        EndExec(done, execs, books);
        if (done.conn >= 0) {
          Answer(done.conn, Reply::kStatus, status);
          ::close(done.conn);
        }
        break;
      }
  }
}

// A pump keeps only its own two sockets (and stdio): a copy of another connection (a client
// waiting for its upstream, an exec's) would hold that one open after its own pump or the
// broker closed it, and its client would wait for an end that never comes.
void CloseAllBut(int a, int b) {
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) return;
  std::vector<int> fds;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    int fd = ::atoi(e->d_name);
    if (fd > 2 && fd != a && fd != b && fd != ::dirfd(d)) fds.push_back(fd);
  }
  ::closedir(d);
  for (int fd : fds) ::close(fd);
}

// A pump per connection, in a process of its own: a stuck or failing one stops nothing else
// (the Sentry's threads for a static binary were not dependable: an abort in thread start).
pid_t StartPump(int client, int up) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGCHLD, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    CloseAllBut(client, up);
    Pump(client, up);
    ::_exit(0);
  }
  if (pid < 0) Say("broker: a forward", errno);
  ::close(client);
  ::close(up);
  return pid;
}

// A command's end as a readable signalfd, not a handler: no signal frame, no sigreturn and
// no poll interrupted to go round again (each a trip through the Sentry, on every exec's
// way back). The mask is inherited: a command's child unblocks everything (spawn.cc).
// (A handler of our own, never run while blocked: the init's writes to the init's pipe, and
// a default disposition would let a Sentry discard the signal as ignored.)
int ChildEndFd() {
  struct sigaction sa{};
  sa.sa_handler = [](int) {};
  sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  ::sigaction(SIGCHLD, &sa, nullptr);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &chld, nullptr);
  int child_fd = ::signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
  if (child_fd < 0) Die("signalfd");
  return child_fd;
}

// The broker's loop and what it holds between rounds. Each round polls, in this order, the
// command ends, the exec socket, the link, the egress port (the four fixed entries below),
// then each exec's client, then each request still coming; then handles what is ready.
struct Broker {
  enum : size_t { kChildEnd, kExecListener, kLink, kEgress, kFixed };
  int link;
  uint64_t init_caps;
  int child_fd, exec_listener, egress;
  std::vector<Exec> execs;
  Ledger books{.own = {::getpid(), {}}};  // what --keep execs left, the broker's pumps (sweep.h)
  std::vector<Pending> pending;
  std::deque<int> waiting;  // accepted egress clients, in the order their upstreams were asked for

  [[noreturn]] void Run() {
    for (;;) {
      std::vector<pollfd> p = PollSet();
      const size_t first_pending = p.size() - pending.size();
      if (::poll(p.data(), p.size(), PollTimeout()) < 0) {
        if (errno == EINTR) continue;
        Die("poll");
      }
      if (p[kChildEnd].revents) {
        signalfd_siginfo drain[8];
        while (::read(child_fd, drain, sizeof(drain)) == static_cast<ssize_t>(sizeof(drain))) {
        }
        Reap(execs, books);
      }
      ForwardSignals(p, first_pending);
      AdvancePending(p, first_pending);
      if (p[kExecListener].revents & POLLIN) AcceptExec();
      if (p[kEgress].revents & POLLIN) AcceptEgress();
      if (p[kLink].revents) TakeUpstream();
    }
  }

  std::vector<pollfd> PollSet() const {
    std::vector<pollfd> p = {{child_fd, POLLIN, 0}, {exec_listener, POLLIN, 0}, {link, POLLIN, 0},
                             {egress, static_cast<short>(egress >= 0 ? POLLIN : 0), 0}};
    for (const auto& e : execs) p.push_back({e.conn, static_cast<short>(e.conn >= 0 ? POLLIN : 0), 0});
    for (const auto& q : pending) p.push_back({q.conn, POLLIN, 0});
    return p;
  }

  // Until the soonest deadline of a request still coming (and a millisecond, so that it has
  // passed on waking); none: no timeout.
  int PollTimeout() const {
    if (pending.empty()) return -1;
    auto soonest = pending.front().deadline;
    for (const auto& q : pending) soonest = std::min(soonest, q.deadline);
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(soonest - std::chrono::steady_clock::now());
    return static_cast<int>(std::max<long long>(0, left.count()) + 1);
  }

  // A client forwards the signals it gets, one byte each (ours is the capability to send
  // them across users); one that went away takes the command's tree with it.
  void ForwardSignals(const std::vector<pollfd>& p, size_t first_pending) {
    for (size_t i = kFixed; i < first_pending; ++i) {
      if (!p[i].revents) continue;
      for (auto& e : execs) {
        if (e.conn != p[i].fd) continue;
        unsigned char sig;
        if (::read(e.conn, &sig, 1) == 1) {
          if (sig > 0 && sig < NSIG) ::kill(e.pid, sig);
          continue;
        }
        KillTree(e.pid);
        ::close(e.conn);
        e.conn = -1;
      }
    }
  }

  // Requests under way: what has come, and the ones out of time. (pending and the poll
  // entries are in the same order; served or dropped ones are taken out afterwards.)
  void AdvancePending(const std::vector<pollfd>& p, size_t first_pending) {
    auto now = std::chrono::steady_clock::now();
    std::vector<Pending> still;
    for (size_t i = 0; i < pending.size(); ++i) {
      Pending& q = pending[i];
      int got = p[first_pending + i].revents ? ReadSome(q) : 0;
      if (got == 1) {
        if (!Serve(q, execs, init_caps, books)) ::close(q.conn);  // (Serve closed the descriptors)
      } else if (got < 0 || now >= q.deadline) {
        q.CloseFds();
        ::close(q.conn);
      } else {
        still.push_back(std::move(q));
      }
    }
    pending = std::move(still);
  }

  void AcceptExec() {
    int conn = ::accept4(exec_listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (conn >= 0 && !Admit(conn, pending)) ::close(conn);
    else if (conn >= 0) {
      // Most often it is all there already: served now, not a poll later.
      Pending& q = pending.back();
      int got = ReadSome(q);
      if (got != 0) {
        if (got < 0 || !Serve(q, execs, init_caps, books)) {
          q.CloseFds();
          ::close(q.conn);
        }
        pending.pop_back();
      }
    }
  }

  // An egress client waits for its upstream, which the outside half is asked for over the link.
  void AcceptEgress() {
    int c = ::accept4(egress, nullptr, nullptr, SOCK_CLOEXEC);
    if (c >= 0) {
      waiting.push_back(c);
      if (!WriteAll(link, "c", 1)) Die("the outside half is gone");
    }
  }

  // The outside half's answer for the longest-waiting egress client: its upstream, or none.
  void TakeUpstream() {
    char ok;
    int up, nfds = 0;
    long n = RecvWithFds(link, &ok, 1, &up, 1, &nfds);
    if (n <= 0) Die("the outside half is gone");
    if (!waiting.empty()) {
      int client = waiting.front();
      waiting.pop_front();
      if (nfds == 1) {
        if (pid_t pump = StartPump(client, up); pump > 0) books.own.pumps.push_back(pump);
      }
      else ::close(client);  // the relay could not be reached: the client sees the connection close
    } else if (nfds == 1) {
      ::close(up);
    }
  }
};

}  // namespace

[[noreturn]] void RunBroker(const Forward& f, int link, uint64_t init_caps) {
  // Its own network namespace, and its own SysV IPC namespace: every context container of a
  // gVisor sandbox is in the sandbox's one IPC namespace otherwise, so a key the platform's
  // code uses (shmget, msgget, semget) could be read or squatted first by another context's.
  if (::unshare(CLONE_NEWNET | CLONE_NEWIPC) != 0) Die("network and IPC namespaces of the context's own");
  LoopbackUp();
  // Before anything else: a command forked without it can never get it back (bounding set).
  if (!DropCaps(init_caps & (uint64_t{1} << 21))) Die("dropping CAP_SYS_ADMIN");
  ::signal(SIGPIPE, SIG_IGN);
  int child_fd = ChildEndFd();
  int exec_listener = ExecListener();
  SpawnSetup();
  int egress = f.listen_port ? EgressListener(f.listen_port) : -1;
  Broker{.link = link, .init_caps = init_caps, .child_fd = child_fd, .exec_listener = exec_listener, .egress = egress}
      .Run();
}

}  // namespace sandshim::ctx
