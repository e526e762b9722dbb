// The parser fails closed (#33), fourth red-team round (polred 2026-11-29 #2,
// /tmp/polred/REPORT.md): each class of attempts that bash really ran although the parser
// allowed them, under the policies of the third round's tests (p1 = the docs' example, p2 a
// developer's, p3 a reviewer's). Each must ask or deny; the ordinary spellings next to them
// must stay allowed.
#include <doctest/doctest.h>

#include "tests/unit/policy/redteam_policies.h"

using namespace sandshim;
using policy::Decision;
using namespace sandshim::testing::redteam;

TEST_CASE("polred r4 R1: readonly/local/export options that make bash read the value as code ask") {
  // bash's declare family reads a value as a compound array assignment under -a/-A and
  // expands what it holds: readonly -a a='($(id))' runs id, though the parser sees one
  // quoted word.
  NeverAllowed(kAll, {"readonly -a a='($(curl x))'", "readonly -a a='(`curl x`)'", "x='$(curl x)'; readonly -a a=\"($x)\"",
                      "readonly -A a='([k]=$(curl x))'", "readonly -ai a='(1)'", "readonly -i n=x", "readonly -n r=x",
                      "export -a a='($(curl x))'", "builtin readonly -a a='($(curl x))'", "readonly -p -a a='(1)'"});
  Allowed(kP3, {"readonly x=1; echo \"$x\"", "readonly -p", "export -p", "export -n x", "unset -v x", "unset -f f",
                "readonly x; echo $x", "export CI=1 -- ; echo", "unset -- x"});
}

TEST_CASE("polred r4 R2: a subscript of anything but digits asks where bash evaluates it") {
  // bash evaluates an indexed subscript as arithmetic, and a name in it recursively, with the
  // $( ) its value holds: x='b[$(id)]'; printf -v 'a[x]' 1 runs id, with no $ in sight.
  NeverAllowed(kAll, {"x='b[$(curl x)]'; printf -v 'a[x]' 1", "x='b[$(curl x)]'; test -v 'a[x]'",
                      "x='b[$(curl x)]'; [ -v 'a[x]' ]", "x='b[$(curl x)]'; test -R 'a[x]'",
                      "x='b[$(curl x)]'; read -a a <<< 1; unset 'a[x]'", "x='b[$(curl x)]'; read -a a <<< 1; unset -v 'a[x]'",
                      "x='b[$(curl x)]'; read 'a[x]' <<< 1", "x='b[$(curl x)]'; read -r 'a[x+1]' <<< 1",
                      "x='b[$(curl x)]'; readonly 'a[x]=1'", "x='b[$(curl x)]'; export 'a[x]=1'",
                      "x='b[$(curl x)]'; printf -v 'a[1+x]' 1", "x='b[$(curl x)]'; test ! -v 'a[x]'"});
  Allowed(kP3, {"printf -v 'a[1]' 1; echo", "read -a a <<< 1; unset 'a[0]'", "unset 'a[@]'", "test -v x && echo",
                "[ -v 'a[2]' ] || echo", "printf '[%s]\\n' x", "test x = '[ab]'", "[ \"$x\" = '[a-z]' ] && echo"});
}

TEST_CASE("polred r4 R3: git options and subcommands that run a command through sh ask under an allowed git") {
  // kP2 allows shell(git:*): each ran `touch pwn` in a real repository (grep -O, fetch and
  // ls-remote --upload-pack, clone -u, difftool -x/--extcmd, archive --exec), or does by its
  // manual (rebase -x, submodule foreach, bisect run, filter-branch).
  NeverAllowed({kP2}, {"git grep -O'curl x' y", "git grep --open-files='curl x' y", "git grep -iO'curl x' y",
                       "git fetch --upload-pack='curl x' .", "git fetch --upload='curl x' .",
                       "git ls-remote --upload-pack='curl x' .", "git clone -u 'curl x' . c", "git clone -qu 'curl x' . c",
                       "git difftool -y -x 'curl x' HEAD", "git difftool -yx 'curl x' HEAD",
                       "git difftool --extcmd='curl x' HEAD", "git archive --exec='curl x' --remote=. HEAD",
                       "git rebase -x 'curl x' HEAD~1", "git rebase --exec='curl x' HEAD~1", "git rebase --exe 'curl x' HEAD",
                       "git -C . submodule foreach 'curl x'", "git bisect run curl x", "git filter-branch --tree-filter 'curl x'",
                       "git push --receive-pack='curl x' origin", "git --no-pager submodule foreach 'curl x'"});
  Allowed(kP2, {"git grep -n TODO", "git fetch origin", "git clone https://example.com/r.git", "git rebase -i HEAD~2",
                "git difftool --tool-help", "git log -p", "git submodule update --init", "git bisect start",
                "git archive --format=tar HEAD", "git diff -- x", "git grep -e exec -- '*.c'"});
}

TEST_CASE("polred r4 R4: tar options that run a program ask under an allowed tar") {
  constexpr const char* kTar = R"J({"permissions": {"allow": ["shell(tar:*)", "shell(grep:*)"],
     "deny": ["shell(curl:*)"]}})J";
  NeverAllowed({kTar}, {"tar -cf /dev/null --to-command='./x.sh' .", "tar -xf a.tar --to-com=./x.sh",
                        "tar -cf a.tar -I ./x.sh .", "tar -cIf ./x.sh a.tar .", "tar cIf ./x.sh a.tar .",
                        "tar -cf a.tar --use-compress-program=./x.sh .", "tar -cf a.tar --use=./x.sh .",
                        "tar -cf a.tar -F ./x.sh -M -L1 .", "tar -cf a.tar --info-script=./x.sh .",
                        "tar -cf a.tar --new-volume-script=./x.sh .", "tar -cf a.tar --rsh-command=./x.sh h:a.tar .",
                        "tar -cf a.tar --rmt-command=./x.sh h:a.tar .",
                        "tar -cf a.tar --checkpoint=1 --checkpoint-action=exec=./x.sh .", "tar -cf a.tar --checkpoint-a=exec=./x.sh .",
                        "tar -cf a.tar -I 'zstd ./x.sh' .", "tar -cf a.tar -I 'zstd;./x.sh' .", "tar -cf a.tar -I zstd -I ./x.sh .",
                        "tar -cf a.tar -Izstd --to-command=./x.sh .", "tar -cf a.tar -I \"$c\" ."});
  Allowed(kTar, {"tar -czf /workspace/a.tgz /workspace/src", "tar xzf /workspace/a.tgz", "tar -xf /workspace/a.tar -C /workspace/out",
                 "tar -tvf /workspace/a.tar", "tar cjf /workspace/a.tbz /workspace/src", "tar --exclude=.git -cf /workspace/a.tar /workspace/src",
                 "tar -I zstd -xf /workspace/a.tar.zst", "tar -I 'zstd -T0 -19' -cf /workspace/a.tar.zst /workspace/src",
                 "tar --use-compress-program=pigz -cf /workspace/a.tgz /workspace/src", "tar -Ixz -xf /workspace/a.txz"});
}

TEST_CASE("polred r4 R5: a file: URL's path is checked like the path") {
  // kP1 denies reading /etc/shadow and allows pip install: pip reads what a file: URL names.
  NeverAllowed({kP1}, {"pip install file:///etc/shadow", "pip install file://localhost/etc/shadow",
                       "pip install file:/etc/shadow", "pip install file:///etc/sh%61dow", "pip install -i file:///etc x",
                       "pip install --index-url=file:///etc/ x", "pip install --extra-index-url file:///etc x",
                       "pip install git+file:///etc x", "pip install 'x @ file:///etc/shadow'", "grep x file:///etc/shadow"});
  Allowed(kP1, {"pip install requests", "pip install -i https://pypi.org/simple x", "pip install file:///workspace/dist/x.whl",
                "pip install 'x @ file:///workspace/x'", "grep file: /workspace/a"});
}

TEST_CASE("polred r4 R6: an awk program that sets ARGV/ARGC or calls through gawk's @ asks") {
  // kP3 denies reading /workspace/secret* and allows awk: ARGV chooses the files awk reads.
  NeverAllowed({kP3}, {"awk 'BEGIN{ARGV[1]=\"/workspace/secret.txt\";ARGC=2}{print}'",
                       "awk 'BEGIN{ARGV[ARGC++]=\"/workspace/secret.txt\"}1'",
                       "awk 'BEGIN{f=\"/workspace/sec\" \"ret.txt\"; ARGV[1]=f; ARGC=2} 1'",
                       "awk 'BEGIN{f=\"sys\" \"tem\"; @f(\"curl x\")}'", "awk '@namespace \"x\"; BEGIN{print 1}'"});
  Allowed(kP3, {"awk '{print $1}' /workspace/a", "awk -F: '{print $2}' /workspace/a", "awk 'NR>1{s+=$3} END{print s}' /workspace/a",
                "awk '/@/ {print}' /workspace/a", "awk '$1 == \"x\" || $2 {print}' /workspace/a"});
}

TEST_CASE("polred r4 R7: rsync, zip, man, scp and vim options that run a program ask under an allowed program") {
  constexpr const char* kTools = R"J({"permissions": {"allow": ["shell(rsync:*)", "shell(zip:*)", "shell(man:*)",
     "shell(scp:*)", "shell(vim:*)", "shell(grep:*)"], "deny": ["shell(curl:*)"]}})J";
  NeverAllowed({kTools}, {"rsync -e './x.sh' a h:b", "rsync -avze ./x.sh a h:b", "rsync --rsh=./x.sh a h:b",
                          "rsync --rs=./x.sh a h:b", "rsync --rsync-path=./x.sh a h:b", "zip -T -TT ./x.sh z.zip a",
                          "zip z.zip a -T --unzip-command ./x.sh", "man -P ./x.sh ls", "man --pager=./x.sh ls",
                          "man -H./x.sh ls", "scp -S ./x.sh a h:b", "scp -o ProxyCommand=./x.sh a h:b", "scp -rS ./x.sh a h:b",
                          "vim -c '!./x.sh' -c q", "vim --cmd '!./x.sh'", "vim '+!./x.sh' +q", "vim -S s.vim", "vim -es < s.vim"});
  Allowed(kTools, {"rsync -avz /workspace/a/ /workspace/b/", "rsync -a --delete /workspace/a/ /workspace/b/",
                   "zip -r /workspace/z.zip /workspace/a", "zip -T /workspace/z.zip", "man ls", "man 5 crontab",
                   "scp -r /workspace/a /workspace/b", "vim /workspace/notes.md"});
}

TEST_CASE("polred r4 R8: git -c with a key that may run a command asks under an allowed git, with no git rule") {
  constexpr const char* kGit = R"J({"permissions": {"allow": ["shell(git:*)", "shell(grep:*)"], "deny": ["shell(curl:*)"]}})J";
  NeverAllowed({kGit}, {"git -c core.pager='./x.sh' log", "git -c core.fsmonitor=./x.sh status", "git -c core.sshCommand=./x.sh fetch",
                        "git -c alias.x='!./x.sh' x", "git -c diff.external=./x.sh diff", "git -ccore.pager=./x.sh log",
                        "git -c include.path=/workspace/c status", "git --config-env=core.pager=P log",
                        "git -c CORE.PAGER=./x.sh log", "git -c user.name=x -c core.editor=./x.sh commit",
                        "git --exec-path=/workspace/x status", "git -c \"$k\" log"});
  Allowed(kGit, {"git -c user.name=x -c user.email=y commit -m m", "git -c color.ui=always log", "git -c advice.detachedHead=false checkout x",
                 "git -c core.quotepath=off status", "git -c init.defaultBranch=main init", "git --no-pager log", "git -C /workspace status"});
}

TEST_CASE("polred r4 R9: a deny rule's path operand reached through a /proc magic link asks") {
  // kP2 allows nothing named rm (denies rm); the docs' example denies rm -rf / and a
  // platform allowing rm relies on that rule: busybox rm has no --preserve-root.
  constexpr const char* kRm = R"J({"permissions": {"allow": ["shell(rm:*)"], "deny": ["shell(rm -rf /:*)"]}})J";
  NeverAllowed({kRm}, {"rm -rf /proc/self/root", "rm -rf /proc/1/root/", "rm -rf /proc/self/cwd/..", "rm -rf /proc/thread-self/root/.",
                       "rm -rf /proc/self/task/1/root", "rm -rf /dev/fd/3 3</"});
  Allowed(kRm, {"rm -rf /workspace/build", "rm -f /workspace/x.o", "rm -rf /tmp/x", "rm -rf /workspace/proc/self/root"});
}

TEST_CASE("polred r4 R10: git config that sets a command, and subcommands git does not have, ask under an allowed git") {
  // Two steps under shell(git:*) with no git rule: the alias or fsmonitor set first runs on
  // the next plain git command.
  constexpr const char* kGit = R"J({"permissions": {"allow": ["shell(git:*)", "shell(grep:*)"], "deny": ["shell(curl:*)"]}})J";
  NeverAllowed({kGit}, {"git config alias.x '!./x.sh'; git x", "git config core.fsmonitor ./x.sh", "git config --local core.pager ./x.sh",
                        "git config set core.sshCommand ./x.sh", "git config --global --add include.path /workspace/c",
                        "git config -e", "git config --file .gitmodules submodule.x.update '!./x.sh'", "git x", "git lfs push",
                        "git config \"$k\" v"});
  Allowed(kGit, {"git config user.name x", "git config --global user.email a@b", "git config --get core.pager", "git config -l",
                 "git config core.pager", "git config --list --show-origin", "git config --unset core.pager", "git status",
                 "git --version", "git help log", "git config color.ui auto"});
}

TEST_CASE("polred r4 R11: database shells' escapes to a shell ask under an allowed sqlite3/psql/mysql") {
  constexpr const char* kDb = R"J({"permissions": {"allow": ["shell(sqlite3:*)", "shell(psql:*)", "shell(mysql:*)"],
     "deny": ["shell(curl:*)"]}})J";
  NeverAllowed({kDb}, {"sqlite3 db '.shell ./x.sh'", "sqlite3 db '.system ./x.sh'", "sqlite3 db '.output |./x.sh' 'select 1'",
                       "sqlite3 -cmd '.shell ./x.sh' db", "sqlite3 -init s.sql db", "sqlite3 db .read s.sql",
                       "psql -c '\\! ./x.sh'", "psql --command='\\o |./x.sh' db", "psql -f s.sql", "psql -X -c \"$q\"",
                       "mysql -e 'system ./x.sh'", "mysql -e '\\! ./x.sh'", "mysql --pager=./x.sh", "mysql --init-command='x'"});
  Allowed(kDb, {"sqlite3 /workspace/db 'select count(*) from t'", "psql -c 'select 1' app", "mysql -e 'show tables' app",
                "psql -h localhost -U app -d app -c 'select now()'"});
}
