// The persistent-shell mode of `session exec --shell`: each command runs in a fresh
// `/bin/sh -c`, but starts in the directory and with the exported variables the previous
// one ended with, so `cd` and `export` carry from one exec to the next.
//
// The state is kept on the HOST, as data, never as code (red team, commit 204eeb5: a state
// file inside the sandbox, sourced by the next exec, let any writer of that file run what the
// policy refused). The wrapper's EXIT trap writes `export -p` and `pwd` to fd 3, a pipe only
// that exec has (ExecStdio::extra); the host parses it strictly (ParseShellReport), keeps it
// in the session directory (root's, 0600) and gives it to the next --shell exec as its
// environment and a directory argument. Nothing is ever sourced.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::session {

struct ShellState {
  std::vector<std::pair<std::string, std::string>> env;  // exported NAME=value, in order
  std::string cwd;                                       // absolute, or empty: unknown
};

// argv that runs `script` in `cwd` (when it can be entered) and reports the state on fd 3
// at exit, keeping the script's exit status. The script never sees fd 3.
std::vector<std::string> ShellArgv(const std::string& script, const std::string& cwd);

// What the wrapper wrote to fd 3: `export -p` as dash and busybox ash print it (export
// NAME='value' with '"'"' for a quote; NAME="value"; a bare export NAME), then "cwd " and
// the directory on the last line. Anything else is an error: the report is not used.
Result<ShellState> ParseShellReport(std::string_view report);

// Which variables come back into the next exec. Never the shell's own (PWD, SHLVL, _), proxy
// variables, nor one sandshim sets for the exec itself (`authoritative`: the names in the
// exec's spec environment: proxies with their token, secrets' placeholders...). Then:
// - judged (the session has command rules): only a variable the policy lets through as an
//   assignment without asking (policy/assignments.h, name and value): the next exec is judged
//   without seeing it, so one that may move a program's configuration (XDG_CONFIG_HOME,
//   polred2 F2), options or code stays with the exec that set it, approved or not;
// - not judged: any variable but those that make the shell, the loader or an interpreter run
//   code or look programs up elsewhere (PATH, ENV, BASH_ENV, LD_*, PYTHON*...): with no policy
//   the user may run anything anyway, and `export API_URL=...` is what --shell is for; these
//   only break the next exec (PATH: the spec's again).
// Carried also drops what execve would refuse (a variable over 128 KiB, or past 1 MiB in all).
struct CarryRule {
  std::set<std::string> authoritative;
  bool judged = false;
};
bool IsCarried(const std::string& name, const std::string& value, const CarryRule& rule);
ShellState Carried(ShellState s, const CarryRule& rule);

// <session>/shell-state.json (a credential context's: shell-state.<context>.json, so one
// principal's exports never reach another's shell): root's, 0600, replaced atomically.
// Missing: the empty state.
Result<ShellState> LoadShellState(const std::filesystem::path& session_dir, const std::string& context);
Status SaveShellState(const std::filesystem::path& session_dir, const std::string& context, const ShellState& s);

}  // namespace sandshim::session
