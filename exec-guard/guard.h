// sandshim-guard: deny rules enforced at execve inside the sandbox (#33, docs/POLICY.md
// "Which layer enforces what"). A session exec whose session has deny rules runs
//   /.sshim/guard [--rule shell(...)]... [--block MANAGER:PKG]... [--audit-fd N] -- CMD [ARG]...
// The guard (the exec's process, which stands in for the command: signals passed on, its exit
// status and fatal signal taken) starts the tracer, which starts the command, seizes it
// (PTRACE_SEIZE with TRACESECCOMP, TRACEFORK, TRACEVFORK, TRACECLONE, EXITKILL), and traces it
// and all it starts, after the command ended too. The command installs a filter that stops every
// execve/execveat for the tracer (SECCOMP_RET_TRACE, which the kernel and gVisor's Sentry both
// implement; gVisor has no user notification) before it execs CMD. At each stop the tracer reads
// the path and argv and judges them (shim/policy/exec_judge.h); a refused exec fails with EPERM
// and is written to the audit descriptor as one JSON line. Each exec that goes through is judged
// again at its exec event, on the file the kernel loaded (/proc/PID/exe: a script's interpreter
// too) and the new image's argv: a path swapped since, or a spelling the tracer resolved
// differently, ends there (SIGKILL before the first instruction, audited the same). Fail closed: the filter outlives the
// tracer, and an execve with no tracer fails (ENOSYS); if the tracer dies, EXITKILL ends every
// tracee. The tracer is the command's parent, so no ptrace scope stands in its way (a sibling
// tracer, CLONE_PARENT, is refused by gVisor's ptrace rules). Neither start copies an address
// space (main.cc, command.cc: clone(CLONE_VM) onto a stack of its own), the costly part of a
// fork in the Sentry.
// Static (it runs in the sandbox's root filesystem, which has nothing of the host's), embedded
// into sandshim like ctx-helper/.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "shim/policy/exec_judge.h"

namespace sandshim::guard {

// The filter the command installs before its exec: execve/execveat (and any call of another
// ABI) stop for the tracer; ptrace and process_vm_writev fail (a tracee must not reach the
// guard). Returns 0 or an errno; sets no_new_privs only when the caller cannot install it
// without (no CAP_SYS_ADMIN). Raw syscalls only (no errno, no heap): the caller shares the
// tracer's memory.
int InstallExecFilter();

// A denied program's file, by which a byte-identical copy of it is recognised.
struct Identity {
  std::string name;  // the program the file is ("busybox" for /bin/id -> busybox)
  std::string path;  // where it was found (resolved)
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  mutable std::string digest;  // of the content, computed when a file of that size is met
};
// The files the deny rules' programs resolve to in the usual bin directories.
std::vector<Identity> FindIdentities(const std::vector<std::string>& programs);
// The program `path` is a copy of, or "".
std::string IdentityOf(const std::vector<Identity>& ids, const std::string& path);

// The command (CMD [ARG]..., found on PATH as execvp finds it), started as the caller's child
// with the exec's signal mask `mask` and seized before it installs the exec filter and execs
// (command.cc), with PTRACE_O_TRACEEXEC as every tracee (each exec is judged again once
// loaded, TraceAll). Its
// pid, or -1 (said through `say`).
pid_t StartCommand(char** cmd, const sigset_t* mask, const std::function<void(const std::string&)>& say);
// Once the command ended: what failed before its exec (the filter, the exec itself), if anything.
void SayStartFailure(const char* name, const std::function<void(const std::string&)>& say);

// What a tracee stopped at the entry of execve/execveat asks for. False: unreadable (or not
// an execve of this ABI), which is refused. file: a path the guard can open to reach it.
bool ReadExec(pid_t pid, policy::ExecFacts& out, std::string& file);
// `path` (absolute) with a leading /proc/self, /proc/thread-self, /dev/fd or /dev/std{in,out,err}
// made the tracee's own (/proc/TID/...), so the tracer's lookups reach what the tracee's would;
// any other path as it was. Pure (proc_path.cc).
std::string InTracee(const std::string& path, pid_t tid);
// Skips the stopped tracee's syscall with -err (orig_rax = -1); false if it could not.
bool FailSyscall(pid_t pid, int err);

struct TraceOptions {
  const policy::Policy* rules = nullptr;
  std::vector<Identity>* identities = nullptr;
  int audit_fd = -1;                         // one JSON line per refusal (-1: none)
  std::function<void(int status)> top_ended;  // the command's wait status, when it ends
  std::function<void()> top_execed;           // its first exec went through (its exec event)
};
// Traces the command (pid `top`, seized, our child) and everything it starts until no tracee
// is left: what it leaves running stays under the guard after it ended.
void TraceAll(pid_t top, const TraceOptions& o);

// One refusal: a JSON line on the audit descriptor and a line for people on stderr.
// `loaded`: found at the exec event (the process is killed), not at the execve stop (EPERM).
void ReportRefusal(const TraceOptions& o, pid_t pid, const policy::ExecFacts& e, const policy::Verdict& v, bool loaded);

}  // namespace sandshim::guard
