// The broker's rule for what an exec leaves (ctx-helper/sweep.h), on made-up process tables.
#include <doctest/doctest.h>

#include <algorithm>
#include <iterator>

#include "ctx-helper/sweep.h"

namespace sandshim::ctx {
namespace {

std::vector<pid_t> Pids(const std::vector<ProcInfo>& v) {
  std::vector<pid_t> out;
  for (const auto& p : v) out.push_back(p.pid);
  std::sort(out.begin(), out.end());
  return out;
}

// 1 init, 2 broker, 3 a pump, 9 an exec client (started from outside: ppid 0).
std::vector<ProcInfo> Base() { return {{1, 0, 1, 10}, {2, 1, 1, 11}, {3, 2, 1, 12}, {9, 0, 9, 13}}; }

}  // namespace

TEST_CASE("leftovers: a running exec's tree and session are its own; orphans and setsid'd daemons are not") {
  auto all = Base();
  all.push_back({20, 2, 20, 30});  // a running command (the broker's child, its own session)
  all.push_back({21, 20, 20, 31});  // its child
  all.push_back({22, 1, 20, 32});  // a double fork's orphan, still in its session
  all.push_back({23, 21, 23, 33});  // a child that called setsid: still under the command
  all.push_back({40, 1, 40, 50});  // a setsid'd daemon whose parents are gone
  all.push_back({41, 2, 41, 51});  // a command's clone(CLONE_PARENT): the broker's child, not a pump
  CHECK(Pids(Leftovers(all, Own{2, {3}}, {20}, {})) == std::vector<pid_t>{40, 41});
  // The command ended (no root any more): everything it left is a leftover.
  all.erase(all.begin() + 4);
  CHECK(Pids(Leftovers(all, Own{2, {3}}, {}, {})) == std::vector<pid_t>{21, 22, 23, 40, 41});
}

TEST_CASE("leftovers: what a --keep exec left is kept with its tree and session, while it is the same process") {
  auto all = Base();
  all.push_back({40, 1, 40, 50});  // kept daemon
  all.push_back({41, 40, 40, 51});  // its worker
  all.push_back({42, 1, 40, 52});  // its worker, orphaned, in its session
  all.push_back({60, 1, 60, 70});  // another daemon
  CHECK(Pids(Leftovers(all, Own{2, {3}}, {}, {{40, 50}})) == std::vector<pid_t>{60});
  // Pid 40 reused by another process (other start time): not kept.
  CHECK(Pids(Leftovers(all, Own{2, {3}}, {}, {{40, 49}})) == std::vector<pid_t>{40, 41, 42, 60});
}

TEST_CASE("leftovers: an exec started from outside the context owns its tree (a direct exec's client)") {
  auto all = Base();
  all.push_back({50, 9, 50, 60});  // the client's command
  all.push_back({51, 9, 51, 61});  // an orphan the client (a sub-reaper) adopted
  all.push_back({52, 1, 52, 62});  // not under anyone
  CHECK(Pids(Leftovers(all, Own{2, {3}}, {}, {})) == std::vector<pid_t>{52});
}

TEST_CASE("leftovers: the same without the init, the broker and its pumps in the table (ReadProcs leaves them out)") {
  // Nothing is owned through them: the broker's sweep reads no /proc/<pid>/stat of theirs.
  auto all = Base();
  all.push_back({20, 2, 20, 30});  // a running command
  all.push_back({21, 20, 20, 31});  // its child
  all.push_back({22, 1, 20, 32});  // a double fork's orphan, in its session
  all.push_back({40, 1, 40, 50});  // a setsid'd daemon, the init's child now
  all.push_back({41, 2, 41, 51});  // a command's clone(CLONE_PARENT)
  all.push_back({42, 1, 42, 52});  // a kept daemon
  all.push_back({50, 9, 50, 60});  // a direct exec's command
  std::vector<ProcInfo> read;
  std::copy_if(all.begin(), all.end(), std::back_inserter(read), [](const ProcInfo& p) { return p.pid > 3; });
  for (const std::vector<pid_t>& roots : {std::vector<pid_t>{20}, std::vector<pid_t>{}})
    CHECK(Pids(Leftovers(read, Own{2, {3}}, roots, {{42, 52}})) == Pids(Leftovers(all, Own{2, {3}}, roots, {{42, 52}})));
  CHECK(Pids(Leftovers(read, Own{2, {3}}, {}, {{42, 52}})) == std::vector<pid_t>{20, 21, 22, 40, 41});
}

}  // namespace sandshim::ctx
