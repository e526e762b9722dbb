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

bool IsLoaderName(const std::string& base) {
  if (base.rfind("ld-", 0) != 0 && base.rfind("ld.", 0) != 0) return false;  // not ld.bfd, ld.gold
  auto so = base.find(".so");
  return so != std::string::npos && (so + 3 == base.size() || base[so + 3] == '.');
}

namespace {

// glibc's rtld options (rtld.c dl_main), in the order it reads them: each before the program.
constexpr const char* kLoaderFlags[] = {"--list", "--verify", "--inhibit-cache", "--help", "--version",
                                        "--list-tunables", "--list-diagnostics"};
constexpr const char* kLoaderValued[] = {"--library-path", "--inhibit-rpath", "--audit", "--preload", "--argv0",
                                         "--glibc-hwcaps-prepend", "--glibc-hwcaps-mask"};

bool In(const auto& list, const std::string& w) {
  return std::find(std::begin(list), std::end(list), w) != std::end(list);
}

Verdict Refused(const std::string& command, const std::string& why) {
  return Verdict{Decision::kDeny, "", command, "the dynamic loader run directly: " + why};
}

}  // namespace

// `ld.so [OPTION]... PROGRAM [ARG]...` runs PROGRAM: judged as an execve of PROGRAM with argv
// [argv0 or PROGRAM, ARG...], by name and by identity (a loaded copy of curl is curl).
static std::optional<Verdict> JudgeLoaded(const Policy& deny_only, const ExecFacts& e) {
  const auto& a = e.argv;
  std::string argv0;
  size_t i = 1;
  for (; i < a.size() && !a[i].empty() && a[i][0] == '-'; ++i) {
    if (In(kLoaderFlags, a[i])) continue;
    if (!In(kLoaderValued, a[i]) || i + 1 >= a.size()) return Refused(e.path, "an option it may read otherwise: " + a[i]);
    if (a[i] == "--argv0") argv0 = a[i + 1];
    ++i;
  }
  if (i >= a.size()) return std::nullopt;  // no program: --help, --version, --list-tunables
  const std::string& program = a[i];
  if (program.find('/') == std::string::npos)
    return Refused(program, "it looks " + program + " up in library directories");
  ExecFacts inner{program, {argv0.empty() ? program : argv0}, e.identity_of ? e.identity_of(program) : "", e.identity_of};
  inner.argv.insert(inner.argv.end(), a.begin() + static_cast<long>(i) + 1, a.end());
  if (inner.argv.front() != program) {  // --argv0 is argv[0]; the file is still the operand
    auto as_file = inner;
    as_file.argv.front() = program;
    if (auto v = JudgeExecve(deny_only, as_file)) return v;
  }
  return JudgeExecve(deny_only, inner);
}

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
  if (IsLoaderName(BaseName(e.path)) || IsLoaderName(e.identity)) return JudgeLoaded(deny_only, e);
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
