// What a context's exec leaves behind (issue #31, "no lingering deputies"): when an exec ends,
// what it started ends with it, unless it asked to keep it (`session exec --keep`).
//
// A process is the exec's while it is under the command (by parent) or in the command's
// session (spawn.cc gives it one). A double fork that also calls setsid (daemon(3)) leaves
// both: its parent gone, it is the context init's child in a session of its own, and nothing
// in /proc says which exec made it. gVisor 2022 refuses PR_SET_CHILD_SUBREAPER to a non-init
// process (EINVAL), so no process of ours can keep such orphans in an exec's tree. So the
// rule is by ownership instead: a process of the context that no running exec owns, and that
// no exec asked to keep, is a leftover, and the end of an exec ends every leftover.
//   - owned: the init (1) and the broker, the broker's pumps (by pid: a command's
//     clone(CLONE_PARENT) also makes a child of the broker), processes started from outside
//     the context (ppid 0: the exec clients, a `runsc exec`) with their trees,
//     a running exec's tree and session, and what a --keep exec left (below) with its tree
//     and session;
//   - a --keep exec's end records every leftover there is at that moment as kept (pid and
//     start time): its own tree's and session's, and its daemons' (a setsid'd one included);
//   - a plain exec's end ends its own session's processes at once; the whole sweep waits for
//     the last plain exec running (another one's hook may still be using a helper it started:
//     a daemon it setsid'd is ended when that exec ends, not while it runs).
// Limits (docs/CONTEXTS.md): a leftover made while a --keep exec runs and still there when it
// ends is kept with it; a plain exec's leftovers live until the last concurrent plain exec ends.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace sandshim::ctx {

struct ProcInfo {
  pid_t pid = 0, ppid = 0, session = 0;
  uint64_t start = 0;  // clock ticks since boot: a pid is the same process while this matches
};
struct Kept {
  pid_t pid;
  uint64_t start;
};

// What the broker owns beside the execs: itself and its pumps.
struct Own {
  pid_t broker;
  std::vector<pid_t> pumps;
};
// Every live process in our PID namespace (zombies left out: they are dead already) but the
// init and own's (never leftovers, and nothing is owned through them: Leftovers).
std::vector<ProcInfo> ReadProcs(const Own& own);
// The broker's books for the rule. A --keep exec's leftovers need recording only once a plain
// exec may sweep: until the first plain exec, nothing is recorded (no reading of /proc per
// exec where every exec keeps, as in the default context); the first plain exec records
// everything unowned there is then, all of it from --keep execs, before it starts.
struct Ledger {
  Own own;
  std::vector<Kept> kept;
  bool plain_seen = false;
};
// The leftovers among all (pure): see above. roots: the running execs' commands.
std::vector<ProcInfo> Leftovers(const std::vector<ProcInfo>& all, const Own& own, const std::vector<pid_t>& roots,
                                const std::vector<Kept>& kept);
// Ends the leftovers (SIGKILL), again until a reading of /proc shows none (a fork racing the
// kill is caught by the next pass). session > 0: only those in that session.
void EndLeftovers(const Own& own, const std::vector<pid_t>& roots, const std::vector<Kept>& kept, pid_t session = 0);
// A --keep exec ended: its leftovers (and any other there is now) are kept from now on.
void KeepLeftovers(const Own& own, const std::vector<pid_t>& roots, std::vector<Kept>& kept);

}  // namespace sandshim::ctx
