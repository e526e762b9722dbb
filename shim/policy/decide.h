// The decision: deny wins, then ask, then allow; anything not allowed, or not known with
// certainty, is ask. A command string is parsed as sh would (shell_parse.h) and every
// simple command in it, unwrapped through env/xargs/sh -c/eval/... (wrappers.h), must be
// allowed, with every path it visibly reads or writes (file_access.h) inside the file rules.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shim/policy/paths.h"
#include "shim/policy/rules.h"

namespace sandshim::policy {

struct Verdict {
  Decision decision = Decision::kAllow;
  std::string rule;     // the rule that decided, or "" (ask: no rule allows it)
  std::string command;  // the part of the command the decision is about
  std::string reason;   // for ask without a rule: why
};

struct ExecContext {
  CwdSet cwd;  // where the command starts (unknown for --shell: its saved directory)
  // Writes below these are asked about whatever the rules say (--shell's saved state, which
  // the next --shell exec sources).
  std::vector<std::string> guarded;
  // NAME=VALUE the exec starts with besides the sandbox's own (session exec -e): judged as
  // assignments before the command.
  std::vector<std::string> env;
};

// A command given as argv (session exec -- CMD ARGS...).
Verdict DecideArgv(const Policy& p, const std::vector<std::string>& argv, ExecContext ctx);
// A command string (session exec --shell, sh -c).
Verdict DecideScript(const Policy& p, std::string_view script, ExecContext ctx);

}  // namespace sandshim::policy
