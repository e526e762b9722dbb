// The parser fails closed (#33), second red-team round (polred, /tmp/polred/REPORT.md): each
// root cause with the corpus rows that real shells ran although the parser allowed them. All
// must ask or deny under a platform-like policy (file rules on the workspace, .env and ~/.ssh
// denied, git push asked) and the docs' example.
#include <doctest/doctest.h>

#include "shim/policy/decide.h"

using namespace sandshim;
using policy::Decision;

namespace {

policy::Policy Parse(const char* doc) {
  auto p = policy::ParsePolicy(boost::json::parse(doc), {.workspace = "/ws"});
  REQUIRE(p.ok());
  return *p;
}

constexpr const char* kPlatform = R"J({"permissions": {
   "allow": ["shell(ls:*)", "shell(cat:*)", "shell(grep:*)", "shell(head:*)", "shell(git:*)", "shell(bash:*)",
             "shell(dd:*)", "shell(rm:*)", "shell(find:*)", "shell(diff:*)", "shell(tar:*)", "shell(sed:*)",
             "shell(awk:*)", "shell(make:*)", "shell(pip:*)", "shell(env:*)", "shell(echo:*)",
             "file(read:${WORKSPACE}/**)", "file(write:${WORKSPACE}/**)", "file(read:/tmp/**)", "file(write:/tmp/**)"],
   "ask":   ["shell(git push:*)"],
   "deny":  ["shell(curl:*)", "shell(rm -rf /:*)", "file(read:${WORKSPACE}/.env)", "file(read:/home/u/.ssh/**)",
             "file(write:${WORKSPACE}/.git/hooks/**)"]}})J";
constexpr const char* kExample = R"J({"permissions": {
   "allow": ["shell(grep:*)", "shell(git status:*)", "shell(pip install:*)", "shell(ls:*)", "shell(bash:*)"],
   "deny":  ["shell(sudo:*)", "shell(curl:*)", "shell(rm -rf /:*)", "file(read:/etc/shadow:*)"]}})J";

policy::ExecContext Ws() {
  policy::ExecContext c;
  c.cwd = policy::CwdSet("/ws");
  return c;
}

void NeverAllowed(std::initializer_list<const char*> scripts) {
  for (const char* doc : {kPlatform, kExample}) {
    auto p = Parse(doc);
    for (std::string script : scripts) {
      // The example policy denies /etc/shadow, not the workspace's .env.
      if (doc == kExample) {
        for (size_t at; (at = script.find("/ws/.env")) != std::string::npos;) script.replace(at, 8, "/etc/shadow");
        if (script.find(".env") != std::string::npos) continue;
      }
      auto v = policy::DecideScript(p, script, Ws());
      INFO(std::string(doc == kPlatform ? "platform: " : "example: ") << script << " -> "
                                                                        << std::string(policy::Name(v.decision)) << " " << v.reason);
      CHECK(v.decision != Decision::kAllow);
    }
  }
}

void Allowed(std::initializer_list<const char*> scripts) {
  auto p = Parse(kPlatform);
  for (const char* script : scripts) {
    auto v = policy::DecideScript(p, script, Ws());
    INFO(script << " -> " << std::string(policy::Name(v.decision)) << " " << v.reason);
    CHECK(v.decision == Decision::kAllow);
  }
}

}  // namespace

TEST_CASE("polred RC1: variables set without a NAME= word are assignments") {
  NeverAllowed({"for PATH in /ws/bin; do ls; done", "for HOME in /ws; do git status; done",
                "for PS4 in '$(curl x)'; do set -x; :; done", "set -a; for BASH_ENV in /ws/env.sh; do bash -c :; done",
                "select LD_PRELOAD in /ws/evil.so; do ls; done", "read PATH <<< /ws/bin; ls",
                "read -r PS4 <<< '$(curl x)'; set -x; :", "read -a LD_PRELOAD <<< /ws/evil.so; ls",
                "printf -v PATH %s /ws/bin; ls", "printf -vPS4 %s '$(curl x)'; set -x; :", "printf -v HOME %s /ws; git status",
                "export PS4+='$(curl x)'; set -x; :", "readonly PS4+='$(curl x)'", "export BASH_ENV+=/ws/env.sh; bash -c :",
                "v=PATH=/ws/bin; export \"$v\"; ls", "v=BASH_ENV=/ws/env.sh; export $v; bash -c :",
                "set -k; bash -c : BASH_ENV=/ws/env.sh", "set -o keyword; bash -c : BASH_ENV=/ws/env.sh",
                "set -ak; ls LD_PRELOAD=/ws/evil.so", "set -o onecmd; ls", "s=-k; set $s; ls LD_PRELOAD=/ws/evil.so",
                "read -r 'BASH_CMDS[grep]' <<< /ws/bin/ls; grep x /dev/null", "printf -v 'BASH_CMDS[git]' %s /ws/bin/git; git status",
                "BASH_ALIASES[ls]=curl; ls", "wait -p PATH; ls"});
  Allowed({"for f in a b; do echo x; done", "read -r line < /ws/in", "printf -v out %s x", "export CI=1",
           "export CI=\"$x\"", "set -euo pipefail; ls", "set -- a b; echo x", "set -x; ls"});
}

TEST_CASE("polred RC2: bash's $\"...\" asks like $'...'") {
  NeverAllowed({"git $\"push\" origin HEAD", "git pu$\"sh\" origin HEAD", "cat $\"/ws/.env\"", "dd if=$\"/ws/.env\"",
                "rm -rf $\"/\"", "eval 'git $\"push\" origin HEAD'", "env git $\"push\" origin HEAD",
                "bash -c 'git $\"push\" origin HEAD'", "echo \"a$\"; git pu$\"sh\""});
}

TEST_CASE("polred RC3: backslash-newline is removed before tokenizing") {
  NeverAllowed({"echo \"$\\\n(curl x)\"", "x=\"$\\\n(curl x)\"", "echo \"a$\\\n(curl x)b\"", "git $\\\n\"push\" origin HEAD",
                "git $\\\n'push' origin HEAD", "cat <\\\n>/ws/.env", "cat 0<\\\n>/ws/.env", "cu\\\nrl x",
                "cat <<E\nx\\\nE\ncurl x\nE\n"});
  Allowed({"ls \\\n  -l", "echo 'a\\\nb'", "echo x # it's \\\nls"});
}

TEST_CASE("polred RC4: <> reads as well as writes") {
  NeverAllowed({"cat <>/ws/.env", "cat 0<>/ws/.env", "head -c 100 <>/ws/.env", "grep . <>/ws/.env",
                "exec 3<>/ws/.env; cat <&3", "cd /ws && cat <>.env", "cat <>/etc/shadow"});
}

TEST_CASE("polred RC5: a name known only at run time asks where bash evaluates its subscript") {
  NeverAllowed({"a='y[$(curl x)]'; test -v \"$a\"", "a='y[$(curl x)]'; [ -v \"$a\" ]", "a='y[$(curl x)]'; printf -v \"$a\" %s 1",
                "a='y[$(curl x)]'; read \"$a\" <<< 1", "read -a y <<< 1; a='y[$(curl x)]'; unset \"$a\"",
                "set -- 'y[$(curl x)]'; test -v \"$1\"", "o=-v; test \"$o\" \"$a\"", "[ -f $f -o -v \"$a\" ]",
                "test $x", "wait $x"});
  Allowed({"[ -n \"$x\" ]", "[ \"$x\" = y ]", "test -f /ws/a", "[ \"$x\" ]"});
}

TEST_CASE("polred RC9: a dynamic word where a modeled tool may take options asks") {
  NeverAllowed({"o=-r; grep $o SECRET .", "o=-rn; grep \"$o\" SECRET .", "set -- -r; grep \"$@\" SECRET .",
                "o='-d recurse'; grep $o SECRET .", "o=-f/ws/.env; grep $o /dev/null", "o=-f/etc/shadow; grep $o /dev/null"});
  Allowed({"grep -e \"$p\" -- /ws/a"});
}

TEST_CASE("polred RC10: a word known only at run time in find asks") {
  NeverAllowed({"find . -maxdepth 0 $(echo -exec) curl x \\;", "e=-exec; find . -maxdepth 0 $e curl x \\;", "find \"$d\" -name x"});
  Allowed({"find . -name '*.py'"});
}

TEST_CASE("polred RC11: ~ after = is expanded (bash)") {
  auto p = Parse(kPlatform);
  auto ctx = Ws();
  for (const char* s : {"dd if=~/.ssh/id_rsa", "dd if=~/.ssh/id_rsa of=/dev/stdout", "cat x=~/.ssh/id_rsa", "cat PATH=a:~/.ssh/id_rsa"}) {
    auto v = policy::DecideScript(p, s, ctx);
    INFO(s << " -> " << v.reason);
    CHECK(v.decision != Decision::kAllow);
  }
}

TEST_CASE("polred RC12: a here-document inside $( ) asks") {
  NeverAllowed({"x=$(cat <<E\nE)\ncurl x\nE\n)"});
}

TEST_CASE("polred RC6: long-option abbreviations of any length spell the deny rule's letters") {
  NeverAllowed({"rm --r --f --no-preserve-root /", "rm --re --fo --no-preserve-root /", "rm -r --f --no-preserve-root /",
                "rm --r -f --no-preserve-root /"});
}

TEST_CASE("polred RC7: option values of unmodeled tools, every split; -C/-T make operands unknown") {
  NeverAllowed({"diff --from-file=.env /dev/null", "diff --to-file=.env /dev/null", "cd /ws && diff --from-file=.env /dev/null",
                "tar -cf - -C.. ws/.env", "tar --directory=.. -cf - ws/.env", "tar -cf - -Tlist.txt", "tar -cf - -T list.txt",
                "sed -f.env /dev/null", "sed -f./.env /dev/null", "awk -f.env /dev/null", "make -f.env",
                "git archive --add-file=.env HEAD", "git config --file=.env --list", "cd /ws && pip install -r.env",
                "pip install -r.env", "pip install --requirement=.env", "tar -xf /dev/null -C.git/hooks"});
  auto v = policy::DecideScript(Parse(kExample), "cd /etc && pip install -rshadow", Ws());  // the docs' example
  CHECK(v.decision != Decision::kAllow);
}

TEST_CASE("polred RC8: recursive reads") {
  // The example policy has no rule on the workspace: platform only.
  auto p = Parse(kPlatform);
  for (const char* s : {"grep -d recurse SECRET /ws", "grep --directories=recurse SECRET /ws", "grep --dir=recurse SECRET /ws",
                "grep -drecurse SECRET .", "cd /ws && grep -d recurse SECRET", "diff -rN /ws /tmp/empty",
                "diff -N -r . /tmp/empty", "git grep --no-index SECRET", "git grep --untracked SECRET",
                "git add -A && git diff --cached", "rg SECRET", "cd /ws && diff -r . /tmp/empty"}) {
    auto v = policy::DecideScript(p, s, Ws());
    INFO(s << " -> " << v.reason);
    CHECK(v.decision != Decision::kAllow);
  }
}

TEST_CASE("polred RC13: git -c and unknown subcommands ask when a rule names a git subcommand") {
  auto p = Parse(kPlatform);
  for (const char* s : {"git -c alias.p=push p origin HEAD", "git -c alias.p='push origin' p HEAD",
                        "git -c help.autocorrect=1 psuh origin HEAD", "git send-pack ../remote.git HEAD:refs/heads/sp",
                        "git --config-env=alias.p=X p", "git -C /ws p origin"}) {
    auto v = policy::DecideScript(p, s, Ws());
    INFO(s << " -> " << v.reason);
    CHECK(v.decision != Decision::kAllow);
  }
  for (const char* s : {"git status", "git --no-pager log --oneline", "git commit -m x"}) {
    auto v = policy::DecideScript(p, s, Ws());
    INFO(s << " -> " << v.reason);
    CHECK(v.decision == Decision::kAllow);
  }
}
