#include "shim/policy/exec_judge.h"

#include <algorithm>

namespace sandshim::policy {

Policy ExecDenyRules(const Policy& p) {
  Policy out;
  out.deny.shell = p.deny.shell;
  out.blocked_packages = p.blocked_packages;
  out.unmatched = Decision::kAllow;
  return out;
}

std::vector<std::string> GuardRuleArgs(const Policy& p) {
  std::vector<std::string> out;
  for (const auto& r : p.deny.shell) out.insert(out.end(), {"--rule", r.text});
  for (const auto& [manager, names] : p.blocked_packages)
    for (const auto& n : names) out.insert(out.end(), {"--block", manager + ":" + n});
  return out;
}

Status AddGuardRule(Policy& p, const std::string& flag, const std::string& value) {
  p.unmatched = Decision::kAllow;
  if (flag == "--rule") {
    if (value.rfind("shell(", 0) != 0) return MakeError("--rule " + value + ": only shell(...) rules are judged at execve", EINVAL);
    return AddRule(p.deny, value, {});
  }
  auto colon = value.find(':');
  if (flag != "--block" || colon == std::string::npos || colon == 0 || colon + 1 == value.size())
    return MakeError(flag + " " + value + ": expected --rule shell(...) or --block MANAGER:PACKAGE", EINVAL);
  p.blocked_packages[value.substr(0, colon)].push_back(value.substr(colon + 1));
  return Ok();
}

static std::string BaseName(const std::string& s) {
  auto slash = s.rfind('/');
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

// A multi-call binary runs the applet its argv[0] names, whatever the file is called, and
// argv[1]'s when argv[0]'s name starts with its own (busybox's rule; toybox's is the same).
static bool MultiCall(const std::string& program) { return program == "busybox" || program == "toybox"; }

std::optional<Verdict> JudgeExecve(const Policy& deny_only, const ExecFacts& e) {
  std::vector<std::string> given = e.argv;
  if (given.empty()) given.push_back(e.path);  // execve(path, NULL): the program still runs
  std::vector<std::vector<std::string>> forms{given};
  auto with_name = [&](const std::string& name) {
    if (name.empty() || BaseName(name) == BaseName(given[0])) return;
    auto f = given;
    f[0] = name;
    forms.push_back(std::move(f));
  };
  if (!MultiCall(e.identity)) {
    with_name(e.path);      // the file's own name: `exec -a ls curl`
    with_name(e.identity);  // what the file is: a copy of curl under any name
  } else if (BaseName(given[0]).rfind(e.identity, 0) == 0) {
    with_name(e.identity);  // `busybox-copy id` is `busybox id`
  }
  for (const auto& f : forms) {
    auto v = DecideArgv(deny_only, f, ExecContext{});
    if (v.decision == Decision::kDeny) return v;
  }
  return std::nullopt;
}

std::vector<std::string> DeniedPrograms(const Policy& deny_only) {
  std::vector<std::string> out;
  for (const auto& r : deny_only.deny.shell) {
    auto name = BaseName(r.words.front());
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

}  // namespace sandshim::policy
