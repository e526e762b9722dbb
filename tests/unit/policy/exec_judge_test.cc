// #33: deny rules judged at execve (shim/policy/exec_judge.h), on the argv a process really
// passes: through wrappers, under another argv[0], as a renamed file or a copy (its identity),
// and never more than the deny rules (what the front door asks about runs here).
#include <doctest/doctest.h>

#include "shim/policy/exec_judge.h"
#include "shim/session/exec/exec_guard.h"

using namespace sandshim;
using policy::ExecFacts;

namespace {

policy::Policy Guard(std::initializer_list<const char*> rules, std::initializer_list<const char*> blocks = {}) {
  policy::Policy p;
  for (const char* r : rules) REQUIRE(policy::AddGuardRule(p, "--rule", r).ok());
  for (const char* b : blocks) REQUIRE(policy::AddGuardRule(p, "--block", b).ok());
  return p;
}

bool Denied(const policy::Policy& p, std::string path, std::vector<std::string> argv, std::string identity = "") {
  return policy::JudgeExecve(p, ExecFacts{std::move(path), std::move(argv), std::move(identity)}).has_value();
}

}  // namespace

TEST_CASE("execve: a denied program is refused whatever reaches it") {
  auto p = Guard({"shell(curl:*)", "shell(id:*)", "shell(rm -rf /:*)"});
  CHECK(Denied(p, "/usr/bin/curl", {"curl", "http://x"}));
  CHECK(Denied(p, "/usr/bin/env", {"env", "id"}));                     // a wrapper
  CHECK(Denied(p, "/bin/sh", {"sh", "-c", "echo; id -u"}));             // sh -c, parsed
  CHECK(Denied(p, "/bin/busybox", {"busybox", "id"}));                  // busybox's applet
  CHECK(Denied(p, "/tmp/x", {"ls"}, "id"));                             // a copy of id, argv[0] lying
  CHECK(Denied(p, "/usr/bin/id", {"ls"}));                              // exec -a ls id
  CHECK(Denied(p, "/tmp/busybox-2", {"/tmp/busybox-2", "id"}, "busybox"));  // a copy of busybox
  CHECK(Denied(p, "/bin/rm", {"rm", "-r", "--force", "/"}));
  CHECK(Denied(p, "/usr/bin/id", {}));                                  // execve(path, NULL)
}

TEST_CASE("execve: what no deny rule names runs, asks included") {
  auto p = Guard({"shell(curl:*)", "shell(rm -rf /:*)"});
  CHECK_FALSE(Denied(p, "/bin/sh", {"sh", "/tmp/w.sh"}));               // the script's execs are judged as they come
  CHECK_FALSE(Denied(p, "/bin/sh", {"sh", "-c", "eval \"$X\""}));       // unknown: the front door's ask, not a refusal
  CHECK_FALSE(Denied(p, "/usr/bin/git", {"git", "commit", "-m", "curl is denied"}));
  CHECK_FALSE(Denied(p, "/bin/rm", {"rm", "-rf", "/tmp/x"}));
  CHECK_FALSE(Denied(p, "/bin/busybox", {"ls", "-l"}, "busybox"));      // another applet of the same file
  CHECK_FALSE(Denied(p, "/bin/busybox", {"cat", "id"}, "busybox"));      // a file named id, read
  CHECK_FALSE(Denied(p, "/bin/id", {"ls"}, "busybox"));                  // busybox runs ls, whatever the link
  CHECK_FALSE(Denied(p, "/tmp/bb", {"/tmp/bb", "id"}, "busybox"));       // "bb: applet not found"
  CHECK_FALSE(Denied(p, "/tmp/x", {"x"}, ""));
}

TEST_CASE("execve: blocked packages and the guard's arguments round-trip") {
  auto p = Guard({"shell(curl:*)"}, {"pip:evil-pkg"});
  CHECK(Denied(p, "/usr/bin/pip", {"pip", "install", "Evil_Pkg"}));
  auto args = policy::GuardRuleArgs(p);
  CHECK(args == std::vector<std::string>{"--rule", "shell(curl:*)", "--block", "pip:evil-pkg"});
  policy::Policy back;
  for (size_t i = 0; i + 1 < args.size(); i += 2) REQUIRE(policy::AddGuardRule(back, args[i], args[i + 1]).ok());
  CHECK(policy::GuardRuleArgs(back) == args);
  CHECK(policy::DeniedPrograms(p) == std::vector<std::string>{"curl"});
  CHECK_FALSE(policy::AddGuardRule(back, "--rule", "file(read:/x)").ok());  // the mounts' business
  CHECK_FALSE(policy::AddGuardRule(back, "--block", "pip").ok());
}

TEST_CASE("execve: a policy keeps only its refusals") {
  policy::Policy full;
  REQUIRE(policy::AddRule(full.allow, "shell(ls:*)", {}).ok());
  REQUIRE(policy::AddRule(full.ask, "shell(git push:*)", {}).ok());
  REQUIRE(policy::AddRule(full.deny, "shell(curl:*)", {}).ok());
  REQUIRE(policy::AddRule(full.deny, "file(read:/etc/shadow)", {}).ok());
  auto d = policy::ExecDenyRules(full);
  CHECK(d.allow.shell.empty());
  CHECK(d.ask.shell.empty());
  CHECK(d.deny.file.empty());
  CHECK(policy::GuardRuleArgs(full) == std::vector<std::string>{"--rule", "shell(curl:*)"});
  CHECK_FALSE(Denied(d, "/usr/bin/git", {"git", "push"}));
  CHECK_FALSE(Denied(d, "/bin/cat", {"cat", "/etc/shadow"}));
}

TEST_CASE("execve: a session exec runs under the guard its spec binds") {
  auto spec = boost::json::parse(R"J({"mounts": [{"destination": "/proc"}, {"destination": "/.sshim/guard"}]})J");
  CHECK(session::BindsGuard(spec));
  CHECK_FALSE(session::BindsGuard(boost::json::parse(R"J({"mounts": [{"destination": "/proc"}]})J")));
  std::vector<std::string> rules{"--rule", "shell(id:*)"};
  CHECK(session::WantGuard(rules, spec));
  CHECK_FALSE(session::WantGuard({}, spec));  // no deny rules: no guard
  boost::json::object process{{"args", boost::json::array{"sh", "-c", "id"}}};
  session::UnderGuard(process, rules, 4);
  CHECK(boost::json::serialize(process["args"]) ==
        R"J(["/.sshim/guard","--rule","shell(id:*)","--audit-fd","4","--","sh","-c","id"])J");
  boost::json::object tty{{"args", boost::json::array{"true"}}};
  session::UnderGuard(tty, rules, -1);
  CHECK(boost::json::serialize(tty["args"]) == R"J(["/.sshim/guard","--rule","shell(id:*)","--","true"])J");
}

namespace {

bool Loaded(const policy::Policy& p, std::vector<std::string> argv, std::string path = "/lib64/ld-linux-x86-64.so.2",
            std::string identity = "", std::string operand_identity = "") {
  ExecFacts e{std::move(path), std::move(argv), std::move(identity)};
  e.identity_of = [operand_identity](const std::string&) { return operand_identity; };
  return policy::JudgeExecve(p, e).has_value();
}

}  // namespace

// polred RC14: `/lib64/ld-linux-x86-64.so.2 /usr/bin/curl --version` ran curl in sessions on
// both backends: the loader's file and argv[0] are not curl's. It is judged as what it runs.
TEST_CASE("execve: the dynamic loader run directly is judged as the program it runs") {
  auto p = Guard({"shell(curl:*)", "shell(rm -rf /:*)"});
  CHECK(Loaded(p, {"ld.so", "/usr/bin/curl", "--version"}));
  CHECK(Loaded(p, {"/lib64/ld-linux-x86-64.so.2", "/usr/bin/curl"}));
  CHECK(Loaded(p, {"x", "--library-path", "/lib", "--preload", "/x.so", "--inhibit-cache", "/usr/bin/curl", "x"}));
  CHECK(Loaded(p, {"x", "--argv0", "ls", "/usr/bin/curl", "x"}));             // argv[0] lies; the file is curl
  CHECK(Loaded(p, {"x", "--audit", "/a.so", "--inhibit-rpath", "l", "/bin/rm", "-rf", "/"}));
  CHECK(Loaded(p, {"x", "--glibc-hwcaps-prepend", "a", "--glibc-hwcaps-mask", "b", "./c"}, "/lib/ld-linux-aarch64.so.1", "", "curl"));
  CHECK(Loaded(p, {"x", "/tmp/innocent"}, "/tmp/ld-copy", "ld-linux-x86-64.so.2", "curl"));  // a copy of the loader, a copy of curl
  CHECK(Loaded(p, {"x", "/lib64/ld-linux-x86-64.so.2", "/usr/bin/curl"}));  // the loader loading itself
  CHECK(Loaded(p, {"x", "--new-option", "/usr/bin/ls"}));                   // an option it may not know: refused
  CHECK(Loaded(p, {"x", "--", "/usr/bin/ls"}));
  CHECK(Loaded(p, {"x", "ls"}));                                            // looked up in library directories
  CHECK(Loaded(p, {"x", "--preload"}));                                     // a value missing
  CHECK(Loaded(p, {"x", "/usr/bin/ls"}, "/usr/lib/x86_64-linux-gnu/ld-2.31.so", "", "curl"));
}

TEST_CASE("execve: the dynamic loader without a denied program runs") {
  auto p = Guard({"shell(curl:*)"});
  CHECK_FALSE(Loaded(p, {"ld.so", "--help"}));
  CHECK_FALSE(Loaded(p, {"ld.so", "--version"}));
  CHECK_FALSE(Loaded(p, {"ld.so", "--list", "/usr/bin/ls"}));
  CHECK_FALSE(Loaded(p, {"ld.so", "--verify", "/usr/bin/ls"}));
  CHECK_FALSE(Loaded(p, {"ld.so", "/usr/bin/ls", "-l"}));
  CHECK_FALSE(Loaded(p, {"ld.so"}));
  CHECK_FALSE(Loaded(p, {"ld", "/usr/bin/curl"}, "/usr/bin/ld.bfd"));      // the linker is not the loader
  CHECK(policy::IsLoaderName("ld-musl-x86_64.so.1"));
  CHECK(policy::IsLoaderName("ld.so"));
  CHECK_FALSE(policy::IsLoaderName("ld.gold"));
  CHECK_FALSE(policy::IsLoaderName("ld-foo.sox"));
}

// What the guard judges at the exec event (exec-guard/tracer.cc OnLoaded, polred2 F7): the
// file /proc/PID/exe names and the new image's argv, in which the kernel put a #! script's
// interpreter line in front of the script's own path and arguments.
TEST_CASE("execve at the exec event: a #! script's interpreter is the program judged") {
  auto p = Guard({"shell(curl:*)", "shell(git push:*)"});
  CHECK(Denied(p, "/usr/bin/curl", {"/usr/bin/curl", "-K", "./tools/nice", "grep", "x", "a.txt"}));
  CHECK(Denied(p, "/usr/bin/curl", {"/usr/bin/curl", "-K", "/tmp/s.sh"}, "curl"));
  CHECK(Denied(p, "/tmp/copy", {"/tmp/copy", "/tmp/s.sh"}, "curl"));  // a copied curl as interpreter
  CHECK(Denied(p, "/usr/bin/git", {"/usr/bin/git", "push", "./s.sh"}));  // #!/usr/bin/git push
  CHECK_FALSE(Denied(p, "/bin/dash", {"/bin/sh", "./build.sh", "all"}));  // an ordinary script
  CHECK_FALSE(Denied(p, "/usr/bin/python3.11", {"/usr/bin/python3", "./t.py"}));
}

// The rule's words split at the C locale's spaces, as `istream >> string` split them before
// (shim/policy/rules.cc: no stream, the guard parses its rules on every exec).
TEST_CASE("exec judge: a rule's words split at any run of spaces, tabs and newlines") {
  policy::Policy p = Guard({"shell(  rm\t-rf \n\v/\f:*)", "shell(curl)"});
  REQUIRE(p.deny.shell.size() == 2);
  CHECK(p.deny.shell[0].words == std::vector<std::string>{"rm", "-rf", "/"});
  CHECK(p.deny.shell[0].prefix);
  CHECK(p.deny.shell[1].words == std::vector<std::string>{"curl"});
  CHECK_FALSE(policy::AddGuardRule(p, "--rule", "shell( \t )").ok());  // names no command
}
