// The persistent shell's state as the host keeps it (red team 204eeb5): what dash and busybox
// ash print for `export -p` is read as data, exactly; anything else is refused whole; names
// that run code or that sandshim sets never come back; the file is root's and 0600.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shim/core/fs.h"
#include "shim/session/exec/shell_state.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim;
using session::ParseShellReport;
using testing::TempDir;

namespace {

// What `env -i Q="it's" NL=$'a\nb' D='$HOME `x` \n \\ "q"' E= SQ="''" sh -c 'export U;
// export -p'` prints, byte for byte (dash 0.5.12, then busybox 1.35 ash, on Debian 12).
constexpr const char* kDash =
    "export D='$HOME `x` \\n \\\\ \"q\"'\n"
    "export E=''\n"
    "export NL='a\nb'\n"
    "export PWD='/tmp'\n"
    "export Q='it'\"'\"'s'\n"
    "export SQ=''\"''\"\n"
    "export U\n";
constexpr const char* kBusybox =
    "export D='$HOME `x` \\n \\\\ \"q\"'\n"
    "export E=''\n"
    "export NL='a\nb'\n"
    "export PATH='/sbin:/usr/sbin:/bin:/usr/bin'\n"
    "export PWD='/tmp'\n"
    "export Q='it'\"'\"'s'\n"
    "export SHLVL='1'\n"
    "export SQ=''\"''\"\n"
    "export U\n";

std::string Value(const session::ShellState& s, const std::string& name) {
  for (const auto& [k, v] : s.env)
    if (k == name) return v;
  return "<absent>";
}

}  // namespace

TEST_CASE("shell state: dash's and busybox's export -p come back as the values they quote") {
  for (const char* shell : {kDash, kBusybox}) {
    CAPTURE(shell);
    auto s = ParseShellReport(std::string(shell) + "cwd /work/dir with space\n");
    REQUIRE(s);
    CHECK(Value(*s, "D") == "$HOME `x` \\n \\\\ \"q\"");
    CHECK(Value(*s, "E") == "");
    CHECK(Value(*s, "NL") == "a\nb");
    CHECK(Value(*s, "Q") == "it's");
    CHECK(Value(*s, "SQ") == "''");
    CHECK(Value(*s, "U") == "<absent>");  // exported but unset: nothing in the environment
    CHECK(s->cwd == "/work/dir with space");
  }
}

TEST_CASE("shell state: double quotes as bash --posix prints them; backslash only before $ ` \" \\") {
  auto s = ParseShellReport("export D=\"\\$HOME \\`x\\` \\\\n \\\\\\\\ \\\"q\\\"\"\nexport Q=\"it's\"\nexport W=\"a\\b\"\ncwd /\n");
  REQUIRE(s);
  CHECK(Value(*s, "D") == "$HOME `x` \\n \\\\ \"q\"");
  CHECK(Value(*s, "Q") == "it's");
  CHECK(Value(*s, "W") == "a\\b");
  CHECK(s->cwd == "/");
}

TEST_CASE("shell state: a directory with a newline is the rest of the report") {
  auto s = ParseShellReport("cwd /tmp/a\nb\n");
  REQUIRE(s);
  CHECK(s->env.empty());
  CHECK(s->cwd == "/tmp/a\nb");
}

TEST_CASE("shell state: anything export -p does not print is refused whole") {
  for (const char* bad : {
           "",                                           // nothing (killed before its trap)
           "export A='1'\n",                             // no cwd
           "export A=1\ncwd /\n",                        // unquoted
           "export A='1'; id\ncwd /\n",                  // code after the value
           "export A='1' B='2'\ncwd /\n",                // two in one line
           "export A=\"$(id)\"\ncwd /\n",                // an expansion
           "export A=\"`id`\"\ncwd /\n",                 // a command substitution
           "export A='unterminated\ncwd /\n",            // never closed
           "export A=\"unterminated\ncwd /\n",
           "export NL=$'a\\nb'\ncwd /\n",                // bash's $'...': not /bin/sh's
           "export 1A='x'\ncwd /\n",                     // not a name
           "export A-B='x'\ncwd /\n",
           "id > /workspace/ran\ncwd /\n",               // a command
           "alias ls=id\ncwd /\n",
           "export A='1'\ncwd \n",                       // empty directory
           "export A='1'\ncwd /tmp",                     // no final newline
       }) {
    CAPTURE(bad);
    CHECK_FALSE(ParseShellReport(bad));
  }
}

TEST_CASE("shell state: names that run code, the shell's own and sandshim's never come back") {
  std::set<std::string> spec = {"HTTP_PROXY", "API_TOKEN", "TERM"};
  for (bool judged : {false, true}) {
    session::CarryRule rule{.authoritative = spec, .judged = judged};
    CAPTURE(judged);
    for (const char* name : {"BASH_ENV", "ENV", "PATH", "IFS", "CDPATH", "HOME", "LD_PRELOAD", "LD_LIBRARY_PATH",
                             "LD_AUDIT", "GCONV_PATH", "GLIBC_TUNABLES", "PYTHONSTARTUP", "NODE_OPTIONS", "PERL5OPT",
                             "RUBYOPT", "GIT_SSH_COMMAND", "BASH_FUNC_x%%", "PS4", "PROMPT_COMMAND", "SHELLOPTS",
                             "JAVA_TOOL_OPTIONS", "MALLOC_CHECK_", "_", "PWD", "SHLVL", "https_proxy", "NO_PROXY",
                             "HTTP_PROXY", "API_TOKEN", "TERM"}) {
      CAPTURE(name);
      CHECK_FALSE(session::IsCarried(name, "1", rule));
    }
    for (const char* name : {"DEBUG", "CI", "OLDPWD", "LANG", "proxy_host", "my_var"}) {
      CAPTURE(name);
      CHECK(session::IsCarried(name, "1", rule));
    }
  }
  // Under a policy, only what it lets through unasked (polred2 F2: the next exec is judged
  // without them); without one, a user's own names carry: that is what --shell is for.
  session::CarryRule judged{.authoritative = spec, .judged = true}, free{.authoritative = spec, .judged = false};
  for (const char* name : {"XDG_CONFIG_HOME", "OPENSSL_CONF", "TAR_OPTIONS", "CARRIED", "API_URL"}) {
    CAPTURE(name);
    CHECK_FALSE(session::IsCarried(name, "1", judged));
    CHECK(session::IsCarried(name, "1", free));
  }
  CHECK_FALSE(session::IsCarried("LANG", "/ws/loc", judged));  // a value that names a path
  auto s = session::Carried({.env = {{"CI", "1"}, {"LD_PRELOAD", "/x.so"}, {"TERM", "dumb"}, {"LANG", "/ws/loc"}},
                             .cwd = "relative"},
                            judged);
  REQUIRE(s.env.size() == 1);
  CHECK(s.env[0].first == "CI");
  CHECK(s.cwd.empty());  // a directory that is not absolute is ignored
  // What execve would refuse (E2BIG on the next exec, for good) is not carried.
  std::string big(200000, 'x'), part(100000, 'y');
  session::ShellState many{.env = {{"big", big}, {"ok", "1"}}, .cwd = "/"};
  for (int i = 0; i < 12; ++i) many.env.emplace_back("p" + std::to_string(i), part);
  auto kept = session::Carried(many, judged);
  REQUIRE(kept.env.size() == 11);  // ok and p0..p9: 1 MiB in all
  CHECK(kept.env[0].first == "ok");
  CHECK(kept.env.back().first == "p9");
}

TEST_CASE("shell state: kept in the session directory, 0600, and read back as written") {
  TempDir dir;
  auto none = session::LoadShellState(dir.path(), "");
  REQUIRE(none);
  CHECK(none->env.empty());
  CHECK(none->cwd.empty());
  session::ShellState s{.env = {{"NL", "a\nb"}, {"Q", "it's \"x\" $y \\"}, {"LATIN1", "caf\xe9"}}, .cwd = "/tmp/deep"};
  REQUIRE(session::SaveShellState(dir.path(), "default", s));
  struct stat st {};
  REQUIRE(::stat((dir.path() / "shell-state.json").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  auto back = session::LoadShellState(dir.path(), "");
  REQUIRE(back);
  CHECK(back->env == s.env);
  CHECK(back->cwd == "/tmp/deep");
  // A credential context has its own: the default one's exports are not the platform's.
  auto other = session::LoadShellState(dir.path(), "platform");
  REQUIRE(other);
  CHECK(other->env.empty());
  REQUIRE(session::SaveShellState(dir.path(), "platform", {.env = {{"P", "1"}}, .cwd = "/"}));
  CHECK(session::LoadShellState(dir.path(), "platform")->env.size() == 1);
  CHECK(session::LoadShellState(dir.path(), "default")->env == s.env);
  REQUIRE(fs::WriteFileAtomic(dir.path() / "shell-state.json", "export A='1'\n", 0600, false));
  CHECK_FALSE(session::LoadShellState(dir.path(), ""));  // not ours: an error, never sourced
}

// Runs the wrapper with a real shell (as `sh`: busybox picks its applet by argv[0]) from /,
// fd 3 a pipe: its exit status and what it reported there.
std::pair<int, std::string> RunWrapper(const char* exe, const std::string& script, const std::string& cwd) {
  auto argv = session::ShellArgv(script, cwd);
  argv[0] = "sh";
  int p[2];
  if (::pipe(p) != 0) return {-1, ""};
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(p[1], 3);
    int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::syscall(SYS_close_range, 4, ~0U, 0);
    if (::chdir("/") != 0) ::_exit(126);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    char* envp[] = {const_cast<char*>("CARRIED=yes"), nullptr};
    ::execve(exe, args.data(), envp);
    ::_exit(127);
  }
  ::close(p[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(p[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  ::close(p[0]);
  int ws = 0;
  ::waitpid(pid, &ws, 0);
  return {WIFEXITED(ws) ? WEXITSTATUS(ws) : -1, out};
}

TEST_CASE("shell state: the wrapper (dash, busybox ash) reports on fd 3, keeps exit N, hides fd 3") {
  int shells = 0;
  for (const char* exe : {"/usr/bin/dash", "/usr/bin/busybox"}) {
    CAPTURE(exe);
    if (::access(exe, X_OK) != 0) continue;
    ++shells;
    auto [status, text] = RunWrapper(exe, "export Q=\"it's \\$x\n\\\\\"; cd /tmp; echo forged >&3; exit 7", "/");
    CHECK(status == 7);
    auto s = ParseShellReport(text);
    REQUIRE_MESSAGE(s, text);
    CHECK(Value(*s, "Q") == "it's $x\n\\");
    CHECK(Value(*s, "CARRIED") == "yes");
    CHECK(s->cwd == "/tmp");
    CHECK(text.find("forged") == std::string::npos);  // the script has no fd 3
    // The directory given is entered; one that is gone leaves the shell where it started.
    CHECK(ParseShellReport(RunWrapper(exe, "true", "/usr").second)->cwd == "/usr");
    auto [status2, text2] = RunWrapper(exe, "false", "/nonexistent/dir");
    CHECK(status2 == 1);
    auto s2 = ParseShellReport(text2);
    REQUIRE(s2);
    CHECK(s2->cwd == "/");
  }
  CHECK(shells > 0);
}
