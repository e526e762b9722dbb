#include "shim/policy/wrappers.h"

#include <algorithm>

namespace sandshim::policy {
namespace {

bool In(std::string_view s, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}
bool IsOption(const Word& w) { return !w.dynamic && w.text.size() > 1 && w.text[0] == '-'; }

// Skips leading options; those in with_value take the next word (or an attached value).
size_t SkipOptions(const std::vector<Word>& argv, size_t i, std::initializer_list<std::string_view> with_value) {
  while (i < argv.size() && IsOption(argv[i])) {
    const auto& t = argv[i].text;
    if (t == "--") return i + 1;
    bool takes = In(t, with_value);
    ++i;
    if (takes) ++i;
  }
  return i;
}

Inner ArgvFrom(const std::vector<Word>& argv, size_t from, bool transparent = true) {
  Inner in;
  in.transparent = transparent;
  if (from < argv.size()) in.argv.assign(argv.begin() + static_cast<long>(from), argv.end());
  return in;
}

std::vector<Inner> One(Inner in) {
  if (in.kind == Inner::Kind::kArgv && in.argv.empty() && in.uncertain.empty()) return {};
  return {std::move(in)};
}

std::vector<Inner> Env(const std::vector<Word>& argv) {
  Inner in;
  size_t i = 1;
  for (; i < argv.size(); ++i) {
    const auto& t = argv[i].text;
    if (argv[i].dynamic && !IsOption(argv[i])) break;
    if (t == "-S" || t.rfind("--split-string", 0) == 0 || t.rfind("-S", 0) == 0) { in.uncertain = "env -S"; return {in}; }
    if (t == "-u" || t == "--unset" || t == "-C" || t == "--chdir") { ++i; continue; }
    if (t == "--") { ++i; break; }
    if (IsOption(argv[i]) || t == "-") continue;
    if (t.find('=') != std::string::npos && t.front() != '=') { in.assignments.push_back(argv[i]); continue; }
    break;
  }
  auto rest = ArgvFrom(argv, i);
  rest.assignments = std::move(in.assignments);
  return One(std::move(rest));
}

std::vector<Inner> Xargs(const std::vector<Word>& argv) {
  size_t i = SkipOptions(argv, 1, {"-I", "-d", "-E", "-e", "-L", "-l", "-n", "-P", "-s", "-a", "--arg-file", "--delimiter",
                                   "--max-args", "--max-procs", "--max-lines", "--max-chars", "--replace", "--eof"});
  Inner in = ArgvFrom(argv, i);
  if (in.argv.empty()) in.argv.push_back(Word{.text = "echo", .raw = "echo"});
  in.argv.push_back(Word{.text = "", .dynamic = true, .raw = "<xargs input>"});  // what stdin adds
  return {std::move(in)};
}

// sh -c SCRIPT, bash -lc SCRIPT, ...: the script; `sh FILE` or `sh` reading stdin: unknown.
std::vector<Inner> Shell(const std::vector<Word>& argv) {
  Inner in;
  bool dash_c = false;
  size_t i = 1;
  for (; i < argv.size() && IsOption(argv[i]); ++i) {
    const auto& t = argv[i].text;
    if (t == "--") { ++i; break; }
    if (t[1] != '-' && t.find('c') != std::string::npos) dash_c = true;
    if (t == "-o" || t == "+o" || t == "-O" || t == "--rcfile" || t == "--init-file") ++i;
  }
  if (!dash_c || i >= argv.size()) {
    in.uncertain = "a shell reading a script we cannot see";
    return {in};
  }
  in.kind = Inner::Kind::kScript;
  in.script = argv[i];
  return {in};
}

std::vector<Inner> Eval(const std::vector<Word>& argv) {
  Inner in;
  in.kind = Inner::Kind::kScript;
  for (size_t i = 1; i < argv.size(); ++i) {
    in.script.dynamic |= argv[i].dynamic;
    in.script.text += (i > 1 ? " " : "") + argv[i].text;
  }
  in.script.raw = in.script.text;
  return {in};
}

// find ... -exec CMD {} ; / -execdir / -ok: each command runs with a path we cannot know.
std::vector<Inner> Find(const std::vector<Word>& argv) {
  std::vector<Inner> out;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (!In(argv[i].text, {"-exec", "-execdir", "-ok", "-okdir"})) continue;
    Inner in;
    in.transparent = false;
    for (++i; i < argv.size() && argv[i].text != ";" && argv[i].text != "+"; ++i) {
      Word w = argv[i];
      if (w.text.find("{}") != std::string::npos) w.dynamic = true;
      in.argv.push_back(std::move(w));
    }
    if (in.argv.empty()) in.uncertain = "find -exec without a command";
    out.push_back(std::move(in));
  }
  return out;
}

}  // namespace

CommandName NameOf(const Word& w) {
  auto slash = w.text.rfind('/');
  if (slash == std::string::npos) return {w.text, true};
  std::string_view dir(w.text.data(), slash);
  bool system = In(dir, {"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin"});
  return {w.text.substr(slash + 1), system};
}

std::vector<Inner> InnerCommands(std::string_view name, const std::vector<Word>& argv) {
  if (name == "env") return Env(argv);
  if (name == "command" || name == "builtin") {
    size_t i = 1;
    for (; i < argv.size() && IsOption(argv[i]); ++i)
      if (argv[i].text == "-v" || argv[i].text == "-V") return {};  // a lookup: runs nothing
    return One(ArgvFrom(argv, i));
  }
  if (name == "exec") return One(ArgvFrom(argv, SkipOptions(argv, 1, {"-a"})));
  if (name == "nice") return One(ArgvFrom(argv, SkipOptions(argv, 1, {"-n", "--adjustment"})));
  if (name == "nohup" || name == "busybox") return One(ArgvFrom(argv, SkipOptions(argv, 1, {})));
  if (name == "setsid" || name == "time") return One(ArgvFrom(argv, SkipOptions(argv, 1, {})));
  if (name == "stdbuf") return One(ArgvFrom(argv, SkipOptions(argv, 1, {"-i", "-o", "-e"})));
  if (name == "ionice") return One(ArgvFrom(argv, SkipOptions(argv, 1, {"-c", "-n", "-p", "-P", "-u"})));
  if (name == "timeout") {
    size_t i = SkipOptions(argv, 1, {"-s", "-k", "--signal", "--kill-after"});
    return One(ArgvFrom(argv, i + 1));  // after the duration
  }
  if (name == "xargs") return Xargs(argv);
  if (In(name, {"sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "yash", "fish", "rbash"})) return Shell(argv);
  if (name == "eval") return Eval(argv);
  if (name == "find") return Find(argv);
  // Not transparent: their own rule must allow them, and what they run is judged too.
  if (In(name, {"sudo", "doas"})) return One(ArgvFrom(argv, SkipOptions(argv, 1, {"-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t"}), false));
  if (In(name, {"chroot", "nsenter", "unshare", "su", "runuser", "ssh", "watch", "strace", "ltrace", "gdb", "script", "flock", "parallel", "chrt", "taskset", "prlimit", "systemd-run"})) {
    Inner in;
    in.transparent = false;
    in.uncertain = std::string(name) + " runs a command we do not unwrap";
    return {in};
  }
  if (In(name, {".", "source"})) {
    Inner in;
    in.uncertain = "sources a script we cannot see";
    return {in};
  }
  if (In(name, {"alias", "unalias", "function", "trap", "enable", "hash"})) {
    Inner in;
    in.uncertain = std::string(name) + " changes what later words run";
    return {in};
  }
  return {};
}

bool IsInertBuiltin(std::string_view name) {
  return In(name, {"cd", "pwd", "true", "false", ":", "echo", "printf", "test", "[", "export", "unset", "set", "shift", "exit",
                   "return", "wait", "read", "umask", "type", "local", "readonly",
                   // Only when they run nothing (exec 2>/dev/null, command -v x): what they do
                   // run is judged as the command it is.
                   "exec", "command", "builtin"});
}

bool IsDangerousAssignment(std::string_view kv) {
  auto name = kv.substr(0, kv.find('='));
  if (In(name, {"PATH", "IFS", "ENV", "BASH_ENV", "CDPATH", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "HOME"}))
    return true;
  for (std::string_view p : {"LD_", "GIT_", "PYTHON", "NODE_", "PERL5", "RUBY", "BASH_FUNC"})
    if (name.rfind(p, 0) == 0) return true;
  return false;
}

}  // namespace sandshim::policy
