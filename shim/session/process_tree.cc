#include "shim/session/process_tree.h"

#include <map>
#include <set>

namespace sandshim::session {

std::vector<pid_t> Subtree(const std::vector<runtime::ProcEntry>& table, pid_t root, pid_t never) {
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

}  // namespace sandshim::session
