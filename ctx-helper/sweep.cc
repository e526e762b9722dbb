#include "ctx-helper/sweep.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <map>

namespace sandshim::ctx {
namespace {

bool Has(const std::vector<pid_t>& v, pid_t p) { return std::find(v.begin(), v.end(), p) != v.end(); }

// Everything under the given processes, by parent, and everything in their sessions.
void AddFamily(const std::vector<ProcInfo>& all, std::vector<pid_t>& owned, const std::vector<pid_t>& tops) {
  std::map<pid_t, std::vector<pid_t>> children;
  for (const auto& p : all) children[p.ppid].push_back(p.pid);
  std::vector<pid_t> todo = tops;
  for (const auto& p : all)
    if (Has(tops, p.session)) todo.push_back(p.pid);
  while (!todo.empty()) {
    pid_t p = todo.back();
    todo.pop_back();
    if (Has(owned, p)) continue;
    owned.push_back(p);
    for (pid_t c : children[p]) todo.push_back(c);
  }
}

// One process's line of /proc/<pid>/stat (dir: /proc's descriptor); false: gone or a zombie.
bool ReadStat(int dir, pid_t pid, ProcInfo& p) {
  char path[32], buf[1024];
  snprintf(path, sizeof(path), "%d/stat", pid);
  int fd = ::openat(dir, path, O_RDONLY | O_CLOEXEC);  // (no walk from / again)
  if (fd < 0) return false;
  ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
  ::close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  const char* paren = strrchr(buf, ')');  // the command name may hold spaces and ')'
  p = ProcInfo{.pid = pid};
  char state;
  unsigned long long start = 0;
  // state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime
  // cstime priority nice threads itrealvalue starttime
  if (!paren || sscanf(paren + 1, " %c %d %*d %d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &state,
                       &p.ppid, &p.session, &start) != 4 ||
      state == 'Z' || state == 'X')
    return false;
  p.start = start;
  return true;
}

}  // namespace

// Every call here is a trip through the Sentry on every plain exec's way back: /proc read with
// getdents64 itself (opendir would add an fstat), and no /proc/<pid>/stat of the init, the
// broker or its pumps (never leftovers, and nothing is owned through them: Leftovers).
std::vector<ProcInfo> ReadProcs(const Own& own) {
  std::vector<ProcInfo> out;
  int dir = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return out;
  alignas(8) char ents[16384];
  for (;;) {
    ssize_t n = ::getdents64(dir, ents, sizeof(ents));
    if (n <= 0) break;
    for (ssize_t at = 0; at < n;) {
      const auto* e = reinterpret_cast<const dirent64*>(ents + at);
      at += e->d_reclen;
      pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
      if (pid <= 0 || pid == 1 || pid == own.broker || Has(own.pumps, pid)) continue;
      if (ProcInfo p; ReadStat(dir, pid, p)) out.push_back(p);
    }
  }
  ::close(dir);
  return out;
}

std::vector<ProcInfo> Leftovers(const std::vector<ProcInfo>& all, const Own& own, const std::vector<pid_t>& roots,
                                const std::vector<Kept>& kept) {
  std::vector<pid_t> tops = roots;
  // An exec started from outside the context (ppid 0) owns its tree: a client that started
  // its command itself (runsc 2024: run.cc's direct path, a sub-reaper of its own).
  for (const auto& p : all)
    if (p.ppid == 0 && p.pid != 1) tops.push_back(p.pid);
  for (const auto& k : kept)
    for (const auto& p : all)
      if (p.pid == k.pid && p.start == k.start) tops.push_back(p.pid);
  std::vector<pid_t> owned;
  AddFamily(all, owned, tops);
  std::vector<ProcInfo> out;
  for (const auto& p : all) {
    // The init, the broker and its pumps (processes started from outside the context are
    // tops above: the exec clients, a `runsc exec`).
    if (p.pid == 1 || p.pid == own.broker || Has(own.pumps, p.pid)) continue;
    if (!Has(owned, p.pid)) out.push_back(p);
  }
  return out;
}

void EndLeftovers(const Own& own, const std::vector<pid_t>& roots, const std::vector<Kept>& kept, pid_t session) {
  std::vector<Kept> killed;
  for (int pass = 0; pass < 32; ++pass) {
    bool fresh = false;
    for (const auto& p : Leftovers(ReadProcs(own), own, roots, kept)) {
      if (session > 0 && p.session != session) continue;
      if (std::any_of(killed.begin(), killed.end(), [&](const Kept& k) { return k.pid == p.pid && k.start == p.start; }))
        continue;  // (killed, not yet gone)
      ::kill(p.pid, SIGKILL);
      killed.push_back({p.pid, p.start});
      fresh = true;
    }
    if (!fresh) return;
  }
}

void KeepLeftovers(const Own& own, const std::vector<pid_t>& roots, std::vector<Kept>& kept) {
  auto all = ReadProcs(own);
  // The ones kept before that are gone: forgotten (their pids may come back as others).
  std::erase_if(kept, [&](const Kept& k) {
    return std::none_of(all.begin(), all.end(), [&](const ProcInfo& p) { return p.pid == k.pid && p.start == k.start; });
  });
  for (const auto& p : Leftovers(all, own, roots, kept)) kept.push_back({p.pid, p.start});
}

}  // namespace sandshim::ctx
