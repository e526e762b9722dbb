// The red-team rounds' policies (p1 = the docs' example, p2 a developer's, p3 a reviewer's
// with an advisory deny-read, p4 a masked .env) and their two assertions: a script never
// allowed (as a --shell script and as `bash -c`), or allowed. Shared by policy_polred*_test.cc.
#pragma once

#include <doctest/doctest.h>

#include <initializer_list>
#include <string>

#include "tests/unit/policy/parse_policy.h"
#include "shim/policy/decide.h"

namespace sandshim::testing::redteam {

using policy::Decision;


inline policy::Policy Parse(const char* doc) { return testing::ParsePolicyDoc(doc); }

constexpr const char* kP1 = R"J({"permissions": {
   "allow": ["shell(grep:*)", "shell(git status:*)", "shell(pip install:*)",
             "file(read:${WORKSPACE}/**)", "file(write:${WORKSPACE}/**)"],
   "deny":  ["shell(sudo:*)", "shell(curl:*)", "shell(rm -rf /:*)", "file(read:/etc/shadow:*)", "shell(nsenter:*)"]}})J";
constexpr const char* kP2 = R"J({"permissions": {
   "allow": ["shell(ls:*)", "shell(cat:*)", "shell(grep:*)", "shell(head:*)", "shell(sed:*)", "shell(awk:*)",
             "shell(git:*)", "shell(make:*)", "shell(python3:*)", "shell(echo:*)", "shell(env:*)", "shell(timeout:*)",
             "shell(nice:*)", "shell(nohup:*)", "shell(setsid:*)", "shell(stdbuf:*)", "shell(time:*)", "shell(true:*)"],
   "ask":   ["shell(git push:*)"],
   "deny":  ["shell(rm:*)", "shell(curl:*)", "shell(wget:*)", "shell(sudo:*)", "shell(git push:*)"]}})J";
constexpr const char* kP3 = R"J({"permissions": {
   "allow": ["shell(ls:*)", "shell(cat:*)", "shell(grep:*)", "shell(head:*)", "shell(tail:*)", "shell(wc:*)",
             "shell(find:*)", "shell(sort:*)", "shell(git status:*)", "shell(git log:*)", "shell(git diff:*)",
             "shell(echo:*)", "shell(sed:*)", "shell(awk:*)", "shell(bash:*)", "shell(sh:*)",
             "file(read:${WORKSPACE}/**)", "file(write:${WORKSPACE}/**)"],
   "ask":   ["shell(git push:*)"],
   "deny":  ["shell(curl:*)", "file(read:${WORKSPACE}/secret*)", "file(write:${WORKSPACE}/.git/**)"]}})J";
constexpr const char* kP4 = R"J({"permissions": {
   "allow": ["shell(git log:*)", "shell(git show:*)", "shell(git diff:*)", "shell(grep:*)", "shell(cat:*)",
             "file(read:${WORKSPACE}/**)", "file(write:${WORKSPACE}/**)"],
   "deny":  ["shell(curl:*)", "file(read:${WORKSPACE}/.env)"]}})J";

inline policy::ExecContext Ws() {
  policy::ExecContext c;
  c.cwd = policy::CwdSet("/workspace");
  return c;
}

// Each script under each policy, as a --shell script and as `bash -c SCRIPT`: never allowed.
inline void NeverAllowed(std::initializer_list<const char*> policies, std::initializer_list<const char*> scripts) {
  for (const char* doc : policies) {
    auto p = Parse(doc);
    for (const char* script : scripts) {
      auto v = policy::DecideScript(p, script, Ws());
      INFO(std::string(script) << " -> " << std::string(policy::Name(v.decision)) << " " << v.reason);
      CHECK(v.decision != Decision::kAllow);
      auto b = policy::DecideArgv(p, {"bash", "-c", script}, Ws());
      INFO("bash -c: " << std::string(policy::Name(b.decision)) << " " << b.reason);
      CHECK(b.decision != Decision::kAllow);
    }
  }
}

inline void Allowed(const char* doc, std::initializer_list<const char*> scripts) {
  auto p = Parse(doc);
  for (const char* script : scripts) {
    auto v = policy::DecideScript(p, script, Ws());
    INFO(std::string(script) << " -> " << std::string(policy::Name(v.decision)) << " " << v.reason);
    CHECK(v.decision == Decision::kAllow);
  }
}

inline constexpr auto kAll = {kP1, kP2, kP3};


}  // namespace sandshim::testing::redteam
