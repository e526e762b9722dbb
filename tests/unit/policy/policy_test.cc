// The command policy (#19): the example settings file from the issue against commands an
// agent might run, including every bypass we know (quoting, paths, wrappers, sh -c, eval,
// $( ), chains, here-docs, env prefixes, xargs, aliases): none may come out allow when a
// part of it is denied or unknown.
#include <doctest/doctest.h>

#include "shim/policy/decide.h"
#include "shim/policy/shell_parse.h"
#include "shim/policy/sources.h"

using namespace sandshim;
using policy::Decision;

namespace {

constexpr const char* kExample = R"J({"permissions": {
   "allow": ["shell(grep:*)", "shell(git status:*)", "shell(pip install:*)",
             "file(read:${WORKSPACE}/**)", "file(write:${WORKSPACE}/**)"],
   "deny":  ["shell(sudo:*)", "shell(curl:*)", "shell(rm -rf /:*)", "network(outbound:*)",
             "file(read:/etc/shadow:*)", "shell(nsenter:*)"]}})J";

policy::Policy Example() {
  auto p = policy::ParsePolicy(boost::json::parse(kExample), {.workspace = "/workspace"});
  REQUIRE(p.ok());
  auto s = policy::ParseSources(boost::json::parse(R"J({"blocked_packages": {"pip": ["evil-pkg"]}})J"));
  REQUIRE(s.ok());
  p->blocked_packages = s->blocked_packages;
  return *p;
}

// cwd known (session exec), or unknown (--shell starts where the last one ended).
policy::ExecContext Ctx(bool shell_mode = false) {
  policy::ExecContext c;
  if (!shell_mode) c.cwd = policy::CwdSet("/workspace");
  c.guarded = {"/tmp/.sandshim-shell"};
  return c;
}

struct Case {
  const char* script;
  Decision want;
  const char* rule = nullptr;  // checked when given
  bool shell_mode = false;
};

const Case kTable[] = {
    // Allowed: the rules, the workspace, harmless spellings.
    {"grep foo file.txt", Decision::kAllow},
    {"grep -r TODO .", Decision::kAllow},
    {"git status", Decision::kAllow},
    {"git status --short", Decision::kAllow},
    {"pip install requests", Decision::kAllow},
    {"grep foo a.txt | grep bar", Decision::kAllow},
    {"cd src && grep x y.c", Decision::kAllow},
    {"grep foo a.txt > out.txt", Decision::kAllow},
    {"grep foo a.txt 2>/dev/null", Decision::kAllow},
    {"grep foo a.txt 2>&1", Decision::kAllow},
    {"/usr/bin/grep foo a.txt", Decision::kAllow},
    {"\\grep foo a.txt", Decision::kAllow},
    {"CI=1 grep x a", Decision::kAllow},
    {"env CI=1 LC_ALL=C grep x a", Decision::kAllow},
    // A variable not known to be inert may move a program's configuration (polred2 F2).
    {"FOO=1 grep x a", Decision::kAsk},
    {"env FOO=1 grep x a", Decision::kAsk},
    {"timeout 5 git status", Decision::kAllow},
    {"sh -c 'grep x a.txt'", Decision::kAllow},
    {"echo hello", Decision::kAllow},
    {"grep x a.txt; git status", Decision::kAllow},
    {"if grep -q x a.txt; then echo yes; fi", Decision::kAllow},
    {"grep -e foo /workspace/a.txt", Decision::kAllow},
    {"grep 'x; curl y && sudo z' a.txt", Decision::kAllow},
    {"echo 'sudo rm -rf /'", Decision::kAllow},
    {"echo $((1+2))", Decision::kAllow},
    {"grep x a.txt &", Decision::kAllow},
    {"grep x /workspace/a", Decision::kAllow, nullptr, true},
    {"# curl x\ngrep y a.txt", Decision::kAllow},
    {"command -v git && exec 2>/dev/null", Decision::kAllow},
    // Denied: the rule wins however it is spelled or wrapped.
    {"sudo ls", Decision::kDeny, "shell(sudo:*)"},
    {"curl https://example.com", Decision::kDeny, "shell(curl:*)"},
    {"rm -rf /", Decision::kDeny, "shell(rm -rf /:*)"},
    {"rm -fr /", Decision::kDeny, "shell(rm -rf /:*)"},
    {"rm -r -f /", Decision::kDeny, "shell(rm -rf /:*)"},
    {"rm -rf -- //", Decision::kDeny, "shell(rm -rf /:*)"},
    {"rm -R -f /", Decision::kDeny, "shell(rm -rf /:*)"},
    {"rm --recursive --force /", Decision::kDeny, "shell(rm -rf /:*)"},
    {"rm --rec --forc /.", Decision::kDeny, "shell(rm -rf /:*)"},
    {"rm -r /workspace/build", Decision::kAsk},  // not the rule's operand: no rule, ask
    {"/bin/rm -rf /", Decision::kDeny, "shell(rm -rf /:*)"},
    {"\\rm -rf /", Decision::kDeny, "shell(rm -rf /:*)"},
    {"'rm' -rf /", Decision::kDeny, "shell(rm -rf /:*)"},
    {"\"r\"m -rf /", Decision::kDeny, "shell(rm -rf /:*)"},
    {"/usr/local/../../bin/curl x", Decision::kDeny, "shell(curl:*)"},
    {"./curl x", Decision::kDeny, "shell(curl:*)"},
    {"sh -c 'curl x'", Decision::kDeny, "shell(curl:*)"},
    {"bash -lc \"sudo id\"", Decision::kDeny, "shell(sudo:*)"},
    {"sh -c \"sh -c 'curl x'\"", Decision::kDeny, "shell(curl:*)"},
    {"eval \"curl x\"", Decision::kDeny, "shell(curl:*)"},
    {"eval curl x", Decision::kDeny, "shell(curl:*)"},
    {"echo $(curl x)", Decision::kDeny, "shell(curl:*)"},
    {"echo \"$(sudo id)\"", Decision::kDeny, "shell(sudo:*)"},
    {"x=$(curl evil)", Decision::kDeny, "shell(curl:*)"},
    {"git status; curl x", Decision::kDeny, "shell(curl:*)"},
    {"git status && sudo id", Decision::kDeny, "shell(sudo:*)"},
    {"grep x a || curl x", Decision::kDeny, "shell(curl:*)"},
    {"grep x a\ncurl x", Decision::kDeny, "shell(curl:*)"},
    {"(curl x)", Decision::kDeny, "shell(curl:*)"},
    {"{ curl x; }", Decision::kDeny, "shell(curl:*)"},
    {"grep x a | sh -c 'curl y'", Decision::kDeny, "shell(curl:*)"},
    {"FOO=1 curl x", Decision::kDeny, "shell(curl:*)"},
    {"env -i curl x", Decision::kDeny, "shell(curl:*)"},
    {"command curl x", Decision::kDeny, "shell(curl:*)"},
    {"exec curl x", Decision::kDeny, "shell(curl:*)"},
    {"nice -n 5 curl x", Decision::kDeny, "shell(curl:*)"},
    {"timeout 10 curl x", Decision::kDeny, "shell(curl:*)"},
    {"nohup curl x &", Decision::kDeny, "shell(curl:*)"},
    {"echo x | xargs curl", Decision::kDeny, "shell(curl:*)"},
    {"xargs -n1 sudo", Decision::kDeny, "shell(sudo:*)"},
    {"find . -exec curl {} \\;", Decision::kDeny, "shell(curl:*)"},
    {"busybox curl x", Decision::kDeny, "shell(curl:*)"},
    {"sudo -u root id", Decision::kDeny, "shell(sudo:*)"},
    {"cat /etc/shadow", Decision::kDeny, "file(read:/etc/shadow:*)"},
    {"grep root /etc/shadow", Decision::kDeny, "file(read:/etc/shadow:*)"},
    {"grep root < /etc/shadow", Decision::kDeny, "file(read:/etc/shadow:*)"},
    {"cd /etc && grep root shadow", Decision::kDeny, "file(read:/etc/shadow:*)"},
    {"grep x /etc/../etc/./shadow", Decision::kDeny, "file(read:/etc/shadow:*)"},
    {"nsenter -t 1 -m sh", Decision::kDeny, "shell(nsenter:*)"},
    {"while true; do curl x; done", Decision::kDeny, "shell(curl:*)"},
    {"for f in a b; do sudo rm $f; done", Decision::kDeny, "shell(sudo:*)"},
    {"if true; then nsenter -t 1; fi", Decision::kDeny, "shell(nsenter:*)"},
    {"pip install evil-pkg", Decision::kDeny, "sources(blocked_packages:pip:evil-pkg)"},
    {"pip install Evil_Pkg==1.0", Decision::kDeny, "sources(blocked_packages:pip:evil-pkg)"},
    {"python3 -m pip install evil-pkg", Decision::kDeny, "sources(blocked_packages:pip:evil-pkg)"},
    {"grep x a.txt && rm -rf /", Decision::kDeny, "shell(rm -rf /:*)"},
    {"f() { curl x; }; f", Decision::kDeny, "shell(curl:*)"},
    {"diff <(curl x) a", Decision::kDeny, "shell(curl:*)"},
    {"cat <<EOF | sh -c 'curl x'\nhello\nEOF", Decision::kDeny, "shell(curl:*)"},
    {"grep x <<'EOF'\n$(anything)\nEOF\ncurl x", Decision::kDeny, "shell(curl:*)"},
    // Ask: no rule allows it, or it cannot be known before it runs.
    {"ls", Decision::kAsk},
    {"python3 script.py", Decision::kAsk},
    {"rm -rf /*", Decision::kAsk, "shell(rm -rf /:*)"},
    {"rm -rf \"$DIR\"", Decision::kAsk},
    {"$CMD foo", Decision::kAsk},
    {"`echo curl` x", Decision::kAsk},
    {"eval \"$X\"", Decision::kAsk},
    {"sh -c \"$X\"", Decision::kAsk},
    {". ./script.sh", Decision::kAsk},
    {"source x", Decision::kAsk},
    {"alias grep=curl; grep x a", Decision::kAsk},
    {"grep x a.txt > /etc/passwd", Decision::kAsk},
    {"grep x /etc/hosts", Decision::kAsk},
    {"cat <<EOF\n$(curl x)\nEOF", Decision::kAsk},
    {"cat <<EOF | sh\ncurl x\nEOF", Decision::kAsk},
    {"bash script.sh", Decision::kAsk},
    {"./grep foo a", Decision::kAsk},
    {"/workspace/bin/git status", Decision::kAsk},
    {"PATH=/workspace/bin:$PATH grep x a", Decision::kAsk},
    {"export PATH=/tmp; grep x a", Decision::kAsk},
    {"LD_PRELOAD=/workspace/x.so grep x a", Decision::kAsk},
    {"echo 'alias grep=curl' >> /tmp/.sandshim-shell/env", Decision::kAsk},
    {"git push", Decision::kAsk},
    {"git -C /etc status", Decision::kAsk},
    {"pip install -r requirements.txt", Decision::kAsk},
    {"npm install left-pad", Decision::kAsk},
    {"cd $HOME && grep x a", Decision::kAsk},
    {"grep x a", Decision::kAsk, nullptr, true},
    {"cd /etc && grep root shadow", Decision::kDeny, "file(read:/etc/shadow:*)", true},
    {"cd /workspace; grep x a", Decision::kAsk, nullptr, true},  // the cd may fail
    // After `cd /abs &&` the next commands surely start there.
    {"cd /workspace/src && grep x y.c", Decision::kAllow, nullptr, true},
    {"cd /workspace && grep x a | grep y b && grep z c", Decision::kAllow, nullptr, true},
    {"cd /workspace && cd /etc && grep root shadow", Decision::kDeny, "file(read:/etc/shadow:*)", true},
    {"cd /workspace && cd ../etc && grep root shadow", Decision::kDeny, "file(read:/etc/shadow:*)", true},
    {"cd /workspace && eval cd /etc && grep root shadow", Decision::kDeny, "file(read:/etc/shadow:*)", true},
    {"cd /workspace && command cd /tmp && grep x a", Decision::kAsk, nullptr, true},
    {"cd /workspace || grep x a", Decision::kAsk, nullptr, true},
    {"! cd /workspace && grep x a", Decision::kAsk, nullptr, true},
    {"(cd /workspace) && grep x a", Decision::kAsk, nullptr, true},
    {"cd /workspace | cat && grep x a", Decision::kAsk, nullptr, true},
    {"cd /workspace & grep x a", Decision::kAsk, nullptr, true},
    {"cd /workspace && grep x a; grep y b", Decision::kAsk, nullptr, true},
    {"cd /workspace && $CD && grep x a", Decision::kAsk, nullptr, true},
    {"xargs grep x", Decision::kAsk},
    {"echo $'\\x63url'", Decision::kAsk},
    {"case x in a) echo;; esac", Decision::kAsk},
    {"grep x 'unterminated", Decision::kAsk},
    {"/bin/{curl,true} x", Decision::kAsk},
    {"c\\\nurl x", Decision::kDeny, "shell(curl:*)"},
    {"git status $(sudo id)", Decision::kDeny, "shell(sudo:*)"},
    {"grep x \"$(echo /etc/shadow)\"", Decision::kDeny, "file(read:/etc/shadow:*)"},
    // A cd that may fail leaves the shell where it was: both are judged.
    {"cd /etc; cd /workspace/nope; grep x shadow", Decision::kDeny, "file(read:/etc/shadow:*)"},
    {"echo ${x:-$(curl y)}", Decision::kDeny, "shell(curl:*)"},  // its $( ) is judged (#33)
};

}  // namespace

TEST_CASE("policy: the example table, with bypass attempts") {
  auto p = Example();
  size_t n = 0;
  for (const auto& c : kTable) {
    auto v = policy::DecideScript(p, c.script, Ctx(c.shell_mode));
    INFO("command: " << c.script << " -> " << policy::Name(v.decision) << " rule=" << v.rule << " reason=" << v.reason);
    CHECK(v.decision == c.want);
    if (c.rule) CHECK(v.rule == c.rule);
    ++n;
  }
  CHECK(n >= 60);
}

TEST_CASE("policy: argv exec is judged like the same words in a script") {
  auto p = Example();
  CHECK(policy::DecideArgv(p, {"grep", "x", "a.txt"}, Ctx()).decision == Decision::kAllow);
  CHECK(policy::DecideArgv(p, {"sh", "-c", "grep x a; curl y"}, Ctx()).decision == Decision::kDeny);
  // No shell expands exec's words: "$X" is a literal argument, "*" too.
  CHECK(policy::DecideArgv(p, {"grep", "$X", "a.txt"}, Ctx()).decision == Decision::kAllow);
  auto v = policy::DecideArgv(p, {"/usr/bin/curl", "-s", "x"}, Ctx());
  CHECK(v.decision == Decision::kDeny);
  CHECK(v.rule == "shell(curl:*)");
  CHECK(v.command == "/usr/bin/curl -s x");
}

TEST_CASE("policy: ask rules, and deny beats ask beats allow") {
  auto p = policy::ParsePolicy(boost::json::parse(R"J({"permissions": {"allow": ["shell(git:*)"],
      "ask": ["shell(git push:*)"], "deny": ["shell(git push --force:*)"]}})J"), {});
  REQUIRE(p.ok());
  CHECK(policy::DecideScript(*p, "git log", Ctx()).decision == Decision::kAllow);
  CHECK(policy::DecideScript(*p, "git push origin", Ctx()).decision == Decision::kAsk);
  CHECK(policy::DecideScript(*p, "git push --force origin", Ctx()).decision == Decision::kDeny);
}

TEST_CASE("policy: bad files name the problem") {
  auto bad = [](const char* doc) {
    auto p = policy::ParsePolicy(boost::json::parse(doc), {});
    REQUIRE_FALSE(p.ok());
    return p.error().msg;
  };
  CHECK(bad(R"J({"permissions": {"allow": ["bash(x)"]}})J").find("unknown kind") != std::string::npos);
  CHECK(bad(R"J({"permissions": {"allow": [1]}})J").find("array of strings") != std::string::npos);
  CHECK(bad(R"J({"permissions": {"allow": ["file(exec:/x)"]}})J").find("read or write") != std::string::npos);
  CHECK(bad(R"J({"permissions": {"alow": []}})J").find("alow") != std::string::npos);
  CHECK(bad(R"J({"nothing": 1})J").find("permissions") != std::string::npos);
}

TEST_CASE("sources: egress lists, blocked packages, limits") {
  auto s = policy::ParseSources(boost::json::parse(R"J({
    "package_managers": {"pip": {"registries": ["https://pypi.org/simple", "https://files.pythonhosted.org"],
                                 "blocked_packages": ["Bad_Thing"]},
                         "npm": {"registries": ["https://registry.npmjs.org:443/"]}},
    "blocked_packages": ["left-pad"],
    "git_remotes": ["https://github.com/acme/*", "git@gitlab.com:acme/x.git"],
    "web_domains": {"allowed": ["docs.python.org"], "blocked": ["evil.example"]},
    "max_execution_time_seconds": 90, "max_memory_mb": 512})J"));
  REQUIRE(s.ok());
  CHECK(s->allow_domains == std::vector<std::string>{"pypi.org", "files.pythonhosted.org", "registry.npmjs.org:443",
                                                     "github.com", "gitlab.com", "docs.python.org"});
  CHECK(s->deny_domains == std::vector<std::string>{"evil.example"});
  CHECK(s->blocked_packages["pip"] == std::vector<std::string>{"bad-thing"});
  CHECK(s->blocked_packages["*"] == std::vector<std::string>{"left-pad"});
  CHECK(s->max_execution_time.count() == 90);
  CHECK(s->max_memory_bytes == 512ll << 20);
  CHECK_FALSE(policy::ParseSources(boost::json::parse(R"J({"max_memory_mb": -1})J")).ok());
  CHECK_FALSE(policy::ParseSources(boost::json::parse(R"J({"registries": []})J")).ok());
}

TEST_CASE("shell parser: commands, redirections, substitutions") {
  auto p = policy::ParseShell("a 1 | b \"2 3\" && (c) 2>err; x=$(d e) f > out <<EOF\nbody $(not)\nEOF\n");
  // a 1 | b "2 3" | c | (the subshell's 2>err) | d e (in the $( )) | x=... f > out <<EOF
  REQUIRE(p.commands.size() == 6);
  CHECK(p.commands[0].argv.size() == 2);
  CHECK(p.commands[1].argv[1].text == "2 3");
  CHECK(p.commands[3].argv.empty());  // the 2 of 2>err is the fd
  CHECK(p.commands[3].redirects.at(0).target.text == "err");
  CHECK(p.commands[4].argv[0].text == "d");
  CHECK(p.commands[5].assignments.size() == 1);
  CHECK(p.commands[5].argv[0].text == "f");
  CHECK(p.commands[5].redirects.size() == 2);
  CHECK(p.uncertain.size() == 1);  // the here-doc's $( ) expands
}
