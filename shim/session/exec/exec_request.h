// One exec as a caller asks for it (SessionExec) and what the command policy makes of it
// (ExecGate): the types the exec path, the policy and Sessions::Exec share.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "bundle/process.h"
#include "shim/session/exec/runner_types.h"

namespace sandshim::session {

struct SessionExec {
  bundle::ExecOverrides overrides;
  std::chrono::milliseconds timeout{0};  // 0: none
  bool shell = false;                    // persistent shell: args are one script
  // --shell: the directory the last --shell exec ended in, from the host-kept state ("": none,
  // a fresh shell; nullopt: unknown). The policy judges the script from there, or from where
  // the exec starts if that directory is gone.
  std::optional<std::string> shell_cwd;
  size_t capture_limit = 0;              // >0: keep the output in the outcome instead
  std::string context;                   // credential context (contexts.h); empty: the default
  // A named context's exec ends what it started when it ends (docs/CONTEXTS.md, "What an
  // exec leaves"); keep: it may outlive it. The default context always keeps (as before).
  bool keep = false;
};

// #19: what the command policy makes of one exec (session_policy.cc).
struct ExecGate {
  std::optional<RunnerOutcome> refused;   // denied or asked: nothing runs, this is the answer
  std::chrono::milliseconds timeout{0};   // sources.json's default timeout (0: none)
  int64_t memory_bytes = 0;               // sources.json's per-exec memory limit (0: none)
  std::vector<std::string> guard_rules;   // #33: the deny rules judged at execve (exec_guard.h)
  bool judged = false;                    // the session has command rules: --shell carries less
};
}  // namespace sandshim::session
