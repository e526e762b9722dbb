// Deny rules judged at execve (#33, docs/POLICY.md "Which layer enforces what"): what a process
// really asks the kernel to run — the path and the argv it passes to execve, after every
// wrapper, script and interpreter has had its turn — against the session's deny rules. The
// in-sandbox guard (exec-guard/) calls this at each execve of a session exec; the front door
// (decide.h) judged only the words of the exec itself.
// Only refusals are judged here: an ask or an unmatched command is the front door's business
// (it already let the exec in), file rules are the mounts'. Pure code.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "shim/policy/decide.h"

namespace sandshim::policy {

// What a policy keeps at execve: its deny shell rules and blocked packages; everything else
// passes (unmatched allow).
Policy ExecDenyRules(const Policy& p);
// The guard's arguments for those rules ("--rule", "shell(curl:*)", "--block", "pip:evil"...),
// and back (ParseGuardRule: one "--rule"/"--block" value into a policy).
std::vector<std::string> GuardRuleArgs(const Policy& p);
Status AddGuardRule(Policy& p, const std::string& flag, const std::string& value);

struct ExecFacts {
  std::string path;               // the file execve runs, as the guard resolved it
  std::vector<std::string> argv;  // as passed (argv[0] is whatever the caller chose)
  std::string identity;           // a denied program this file is a byte-identical copy of ("": none)
  // The identity of another file the exec names (the program operand of a dynamic loader run
  // directly), resolved as the process would resolve it; unset: none known.
  std::function<std::string(const std::string& path)> identity_of;
};

// The dynamic loader's file names (ld-linux-x86-64.so.2, ld-linux-aarch64.so.1, ld-musl-*.so.1,
// ld.so, ld-2.31.so): run as a program, it maps and runs its program operand itself.
bool IsLoaderName(const std::string& base);

// The refusal for one execve, or nullopt. Judged three ways, so neither a renamed argv[0]
// (`exec -a ls curl`), nor a renamed or copied file (`cp /usr/bin/curl /tmp/x`) dodges a
// rule: argv as given; argv with argv[0] the file's path; argv with argv[0] the program the
// file's content is. A multi-call binary (busybox, toybox) is read as it reads its argv: the
// applet argv[0] names, or argv[1]'s under a name that starts with its own (`busybox-copy id`).
// The dynamic loader run directly (by its name or its identity) is judged as the program it
// runs, after its own options (--library-path X, --preload X, --argv0 X...); an option it may not
// know, or a program it would look up in library directories (no `/`), is refused.
std::optional<Verdict> JudgeExecve(const Policy& deny_only, const ExecFacts& e);

// The programs the deny rules name (each rule's first word), whose files are the identities
// a copy is recognised by; sudo-like wrappers are not special here.
std::vector<std::string> DeniedPrograms(const Policy& deny_only);

}  // namespace sandshim::policy
