#include "shim/core/process_tree.h"

#include <signal.h>

#include <map>
#include <set>

namespace sandshim::proc {

std::vector<pid_t> Subtree(const std::vector<ProcEntry>& table, pid_t root, pid_t never) {
  std::multimap<pid_t, pid_t> children;
  std::set<pid_t> present;
  for (const auto& e : table) {
    children.emplace(e.ppid, e.pid);
    present.insert(e.pid);
  }
  std::vector<pid_t> out;
  std::set<pid_t> seen{root};
  std::vector<pid_t> todo{root};
  while (!todo.empty()) {
    pid_t p = todo.back();
    todo.pop_back();
    if (p != never && present.count(p)) out.push_back(p);
    auto [b, e] = children.equal_range(p);
    for (auto it = b; it != e; ++it)
      if (seen.insert(it->second).second) todo.push_back(it->second);
  }
  return out;
}

size_t SignalTree(const std::function<Result<std::vector<ProcEntry>>()>& table,
                  const std::function<void(pid_t, int)>& signal, pid_t root, pid_t never, int sig) {
  if (root <= 0) return 0;
  std::set<pid_t> held;
  int hold = sig == SIGKILL ? SIGSTOP : sig;
  for (int round = 0; round < (sig == SIGKILL ? 10 : 1); ++round) {
    auto t = table();
    if (!t) break;
    size_t before = held.size();
    for (pid_t p : Subtree(*t, root, never))
      if (held.insert(p).second) signal(p, hold);
    if (held.size() == before) break;
  }
  if (sig == SIGKILL)
    for (pid_t p : held) signal(p, SIGKILL);
  return held.size();
}

}  // namespace sandshim::proc
