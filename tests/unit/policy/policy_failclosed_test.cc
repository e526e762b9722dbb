// The parser fails closed (#33): each defect class the red team found (whole commands the
// parser never saw; option grammars that differed from the real tools') and the option
// model that replaced the guesses. The same scripts run in dash, busybox sh and bash in the
// policy_shells suite (tests/policy/bypass.txt), which shows they really run there.
#include <doctest/doctest.h>

#include "tests/unit/policy/parse_policy.h"
#include "shim/policy/decide.h"
#include "shim/policy/options.h"
#include "shim/policy/sources.h"
#include "shim/session/exec/policy_mounts.h"

using namespace sandshim;
using policy::Decision;

namespace {

policy::Policy Parse(const char* doc) { return testing::ParsePolicyDoc(doc); }

// The docs' example, plus a platform that allows the file tools themselves.
constexpr const char* kExample = R"J({"permissions": {
   "allow": ["shell(grep:*)", "shell(git status:*)", "shell(pip install:*)",
             "file(read:${WORKSPACE}/**)", "file(write:${WORKSPACE}/**)"],
   "deny":  ["shell(sudo:*)", "shell(curl:*)", "shell(rm -rf /:*)", "network(outbound:*)",
             "file(read:/etc/shadow:*)", "shell(nsenter:*)"]}})J";
constexpr const char* kTools = R"J({"permissions": {
   "allow": ["shell(grep:*)", "shell(sort:*)", "shell(cp:*)", "shell(uniq:*)", "shell(tee:*)", "shell(dd:*)",
             "shell(env:*)", "shell(time:*)", "shell(xargs:*)", "shell(cat:*)", "shell(nice:*)", "shell(timeout:*)"],
   "deny":  ["shell(curl:*)", "file(read:/secret/**)", "file(write:/locked/**)"]}})J";

policy::ExecContext Ws() {
  policy::ExecContext c;
  c.cwd = policy::CwdSet("/workspace");
  return c;
}

// Each must never be allowed, under either policy.
const char* const kNeverAllowed[] = {
    // for NAME do ... (no `in`): the body is commands.
    "for i do curl x; done", "for i; do curl x; done", "for i\ndo curl x; done",
    // quotes inside ${...}
    "echo \"${x:-\"}\"}\"; curl x", "echo ${x:-'}'}; curl x", "echo \"${x:-'}'}\"; curl x", "echo ${x/'}'/y}; curl x",
    "x='\\$(curl x)'; echo ${x@P}",
    // here-documents ended where sh ends them
    "cat <<$E\n$E\ncurl x\n\n", "cat <<\"$E\"\n$E\ncurl x\nE\n", "cat <<E\\\nF\nEF\ncurl x\n", "cat <<E\nx\\\nE\ncurl x\nE\n",
    // bash's $((cmd) ) and arithmetic that evaluates names
    "echo $((curl x) )", "a='y[$(curl x)]'; echo $((a))", "echo $[ $(curl x) ]", "(( a ))",
    "test -v 'y[$(curl x)]'", "printf -v 'y[$(curl x)]' %s 1", "read 'y[$(curl x)]' <<< 1",
    // env's split-string in clusters and long abbreviations
    "env -S 'curl x'", "env -iS'curl x'", "env -vS 'curl x'", "env --sp='curl x'", "env --split-s 'curl x'",
    "env -C /secret cat key",
    // option values judged as the command
    "/usr/bin/time -o grep curl x", "time -ao grep curl x", "echo x | xargs --process-slot-var grep curl",
    "echo x | xargs -agrep curl", "exec -ca grep curl x", "timeout -k 1 5 curl x", "nice --adj 5 curl x",
    // cd's options are not its directory
    "cd -P /secret; cat key", "cd -- /secret; cat key", "cd -L /secret && cat key", "pushd /secret; cat key",
    // file operands as the tools read them
    "grep -rf /secret/key .", "grep -f/secret/key /dev/null", "grep -hf /secret/key a", "grep -r x /secret",
    "grep -r x /", "sort -o /locked/f a", "sort -o/locked/f a", "sort --out=/locked/f a", "sort -uo/locked/f a",
    "cp -t /locked a", "cp -rt/locked a", "cp --target /locked a", "uniq a /locked/f", "tee -a /locked/f",
    "dd if=a of=/locked/f", "dd if=/secret/key of=a", "ln /secret/key here", "chmod -w /locked/f",
    "find /locked -delete", "sort --compress-program=curl a", "sort *", "cat /secret/*",
};

}  // namespace

TEST_CASE("policy fails closed: each #33 defect class asks or denies") {
  for (const char* doc : {kExample, kTools}) {
    auto p = Parse(doc);
    for (const char* script : kNeverAllowed) {
      auto v = policy::DecideScript(p, script, Ws());
      INFO("policy " << std::string(doc == kExample ? "example" : "tools") << ": " << std::string(script) << " -> " << std::string(policy::Name(v.decision))
                     << " " << v.reason);
      CHECK(v.decision != Decision::kAllow);
    }
  }
}

TEST_CASE("policy fails closed: ordinary uses of the modeled tools stay allowed") {
  auto p = Parse(kTools);
  for (const char* script : {"grep -rn TODO src", "grep -e a -e b f", "grep -f pats.txt data", "sort -o out.txt in.txt",
                             "sort -t, -k2 -n data.csv", "cp -t build/ a b", "cp -r src build", "uniq in out",
                             "tee -a log < in", "dd if=/dev/zero of=blob bs=1k count=4", "env CI=1 grep x f",
                             "timeout --signal=KILL 5 grep x f", "nice -n 10 grep x f", "time grep x f",
                             "cat src/*.c", "echo $((1+2))", "for f in a b; do cat \"$f\" > /dev/null; done 2>/dev/null || true"}) {
    auto v = policy::DecideScript(p, script, Ws());
    INFO(std::string(script) << " -> " << std::string(policy::Name(v.decision)) << " " << v.reason);
    if (std::string_view(script).find("for f") == 0) continue;  // "$f": a path known only at run time asks
    CHECK(v.decision == Decision::kAllow);
  }
}

TEST_CASE("option grammar: getopt_long's reading") {
  auto words = [](std::initializer_list<const char*> ws) {
    std::vector<policy::Word> out;
    for (auto w : ws) out.push_back(policy::Word{.text = w, .raw = w});
    return out;
  };
  const auto& env = *policy::GrammarOf("env");
  auto a = policy::ParseOptions(env, words({"env", "-iS", "x y"}));
  CHECK(a.Has("-i"));
  REQUIRE(a.Values("-S").size() == 1);
  CHECK(a.Values("-S")[0].text == "x y");
  a = policy::ParseOptions(env, words({"env", "--sp=x", "cmd"}));
  CHECK(a.Has("--split-string"));
  a = policy::ParseOptions(env, words({"env", "--un", "X", "cmd", "-x"}));
  CHECK(a.Values("--unset")[0].text == "X");
  CHECK(a.first_operand == 3);
  CHECK(policy::ParseOptions(env, words({"env", "-a", "x", "cmd"})).uncertain.find("unknown option -a") != std::string::npos);
  CHECK(policy::ParseOptions(env, words({"env", "--d", "cmd"})).uncertain.find("ambiguous") != std::string::npos);  // --debug, --default-signal
  const auto& sort = *policy::GrammarOf("sort");
  a = policy::ParseOptions(sort, words({"sort", "in", "-uo", "out", "--", "-x"}));
  CHECK(a.Values("-o")[0].text == "out");
  CHECK(a.operands.size() == 2);  // in, -x (permuted; after --)
  const auto& nice = *policy::GrammarOf("nice");
  a = policy::ParseOptions(nice, words({"nice", "-5", "cmd"}));
  CHECK(a.first_operand == 2);
}

TEST_CASE("file rules as mounts: which rules become masked or read-only paths") {
  auto p = Parse(R"J({"permissions": {"deny": ["file(read:/etc/shadow:*)", "file(read:${WORKSPACE}/.env)",
      "file(write:${WORKSPACE}/ci/**)", "file(read:${WORKSPACE}/**/*.pem)", "file(write:/**)"]}})J");
  auto m = session::FileRuleMounts(p);
  CHECK(m.masked == std::vector<std::string>{"/etc/shadow", "/workspace/.env"});
  CHECK(m.readonly == std::vector<std::string>{"/workspace/ci"});
  CHECK(m.advisory.size() == 2);
}
