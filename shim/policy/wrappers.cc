#include "shim/policy/wrappers.h"

#include <algorithm>
#include <optional>

#include "shim/policy/options.h"
#include "shim/policy/shell_options.h"

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

Inner Uncertain(std::string why, bool transparent = true) {
  Inner in;
  in.transparent = transparent;
  in.uncertain = std::move(why);
  return in;
}

// The command after a wrapper's options, read by the wrapper's own grammar (options.h).
// skip: operands before the command (timeout's duration).
std::vector<Inner> Wrapped(std::string_view name, const std::vector<Word>& argv, size_t skip = 0) {
  auto args = ParseOptions(*GrammarOf(name), argv);
  if (!args.uncertain.empty()) return {Uncertain(std::string(name) + ": " + args.uncertain)};
  return One(ArgvFrom(argv, args.first_operand + skip));
}

std::vector<Inner> Env(const std::vector<Word>& argv) {
  auto args = ParseOptions(*GrammarOf("env"), argv);
  if (!args.uncertain.empty()) return {Uncertain("env: " + args.uncertain)};
  if (args.Has("-S") || args.Has("--split-string")) return {Uncertain("env -S splits a string into a command")};
  if (args.Has("-C") || args.Has("--chdir")) return {Uncertain("env --chdir moves what it runs")};
  Inner in;
  size_t i = args.first_operand;
  for (; i < argv.size(); ++i) {
    const auto& w = argv[i];
    if (!w.dynamic && w.text == "-") continue;  // a lone "-" is -i
    auto eq = w.raw.find('=');
    bool assignment = eq != std::string::npos && eq > 0 && w.raw.find_first_of("'\"\\$`") > eq;
    if (!assignment) break;
    in.assignments.push_back(w);
  }
  auto rest = ArgvFrom(argv, i);
  rest.assignments = std::move(in.assignments);
  if (i < argv.size() && argv[i].dynamic) rest.uncertain = "env runs a command known only at run time";
  return One(std::move(rest));
}

std::vector<Inner> Xargs(const std::vector<Word>& argv) {
  auto args = ParseOptions(*GrammarOf("xargs"), argv);
  if (!args.uncertain.empty()) return {Uncertain("xargs: " + args.uncertain)};
  Inner in = ArgvFrom(argv, args.first_operand);
  if (in.argv.empty()) in.argv.push_back(Word{.text = "echo", .raw = "echo"});
  // -I R / -i[R]: R in any word is replaced by the input; otherwise the input is appended.
  std::optional<std::string> replace;
  for (const auto& o : args.options)
    if (o.name == "-I" || o.name == "-i" || o.name == "--replace") replace = o.value ? o.value->text : "{}";
  if (!replace) {
    in.argv.push_back(Word{.text = "", .dynamic = true, .expanded = true, .raw = "<xargs input>"});
  } else {
    for (auto& w : in.argv)
      if (replace->empty() || w.text.find(*replace) != std::string::npos) w.dynamic = w.expanded = true;
  }
  return {std::move(in)};
}

// sh -c SCRIPT, bash -ec SCRIPT, ...: the script. A shell reading a file or stdin, an
// interactive or login shell (it runs its start-up files first), or an option not in the
// table of those known not to change how it reads what follows (shell_options.h: the same
// table as `set`'s, for letters, -o NAME and bash's -O NAME): what runs cannot be seen.
std::vector<Inner> Shell(const std::vector<Word>& argv) {
  bool dash_c = false;
  std::string unseen;
  size_t i = 1;
  auto named = [&](char kind, bool on) {
    if (i + 1 >= argv.size() || argv[i + 1].dynamic) return false;
    const auto& n = argv[++i].text;
    return kind == 'o' ? IsKnownShellOptionName(n, on) : IsKnownShoptName(n, on);
  };
  for (; i < argv.size(); ++i) {
    const auto& w = argv[i];
    if (w.dynamic) return {Uncertain("a shell with options known only at run time")};
    const auto& t = w.text;
    if (t == "--" || t == "-") { ++i; break; }
    if (t.size() < 2 || (t[0] != '-' && t[0] != '+')) break;
    if (In(t, {"--norc", "--noprofile", "--posix", "--noediting", "--restricted", "--verbose"})) continue;
    // An interactive or login shell, or one told to read a file first, runs code we cannot see
    // before its script: asked about, and its script judged all the same (a deny in it wins).
    if (t[1] == '-') { unseen = "a shell option we do not model: " + w.raw; continue; }
    bool on = t[0] == '-';
    size_t at = i;
    for (char c : t.substr(1)) {
      if (c == 'c' && on) dash_c = true;
      else if (c == 'o' || c == 'O') {
        if (!named(c, on)) unseen = "a shell option we do not model: " + w.raw + " " + (i < argv.size() ? argv[i].raw : "");
      } else if (!IsKnownShellLetter(c, on)) unseen = "a shell option we do not model: " + argv[at].raw;
    }
  }
  if (!dash_c || i >= argv.size()) return {Uncertain("a shell reading a script we cannot see")};
  Inner in;
  in.kind = Inner::Kind::kScript;
  in.script = argv[i];
  in.uncertain = unseen;
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
  // A word known only at run time may be an action (-exec, -delete), and GNU find reads a
  // path operand that starts with `-` as its expression: nothing after it can be known.
  for (const auto& w : argv)
    if (w.dynamic && w.text != "{}") return {Uncertain("find with a word known only at run time: " + w.raw, false)};
  for (size_t i = 1; i < argv.size(); ++i) {
    if (!In(argv[i].text, {"-exec", "-execdir", "-ok", "-okdir"})) continue;
    Inner in;
    in.transparent = false;
    for (++i; i < argv.size() && argv[i].text != ";" && argv[i].text != "+"; ++i) {
      Word w = argv[i];
      if (w.text.find("{}") != std::string::npos) w.dynamic = w.expanded = true;
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
  if (name == "command") {
    auto args = ParseOptions(*GrammarOf("command"), argv);
    if (!args.uncertain.empty()) return {Uncertain("command: " + args.uncertain)};
    if (args.Has("-v") || args.Has("-V")) return {};  // a lookup: runs nothing
    return One(ArgvFrom(argv, args.first_operand));
  }
  if (name == "builtin" || name == "busybox" || name == "nohup") {
    if (argv.size() > 1 && (argv[1].dynamic || (argv[1].text.size() > 1 && argv[1].text[0] == '-')))
      return {Uncertain(std::string(name) + " with an option we do not model")};
    return One(ArgvFrom(argv, 1));
  }
  if (name == "exec") {
    // argv[0] starting with `-` makes a shell a login shell, which first runs the profile
    // files in $HOME (the workspace in a session: polred2 F6), as `bash -l` does.
    auto args = ParseOptions(*GrammarOf("exec"), argv);
    for (const auto& v : args.Values("-a"))
      if (v.dynamic || (!v.text.empty() && v.text[0] == '-')) return {Uncertain("exec -a " + v.raw + " may start a login shell")};
    if (args.Has("-l")) return {Uncertain("exec -l starts a login shell")};
    return Wrapped(name, argv);
  }
  if (In(name, {"nice", "stdbuf", "setsid", "time"})) return Wrapped(name, argv);
  if (name == "timeout") return Wrapped(name, argv, 1);  // after the duration
  if (name == "ionice") {
    auto args = ParseOptions(*GrammarOf("ionice"), argv);
    bool others = args.Has("-p") || args.Has("-P") || args.Has("-u") || args.Has("--pid") || args.Has("--pgid") || args.Has("--uid");
    if (args.uncertain.empty() && others && args.operands.empty()) return {};  // changes other processes
    if (!args.uncertain.empty() || others) return {Uncertain("ionice: " + args.uncertain)};
    return One(ArgvFrom(argv, args.first_operand));
  }
  if (name == "xargs") return Xargs(argv);
  if (In(name, {"sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "yash", "fish", "rbash"})) return Shell(argv);
  if (name == "eval") return Eval(argv);
  if (name == "find") return Find(argv);
  // Not transparent: their own rule must allow them, and what they run is judged too.
  if (In(name, {"sudo", "doas"})) {
    for (size_t i = 1; i < argv.size() && argv[i].text.size() > 1 && argv[i].text[0] == '-'; ++i)
      if (argv[i].text.find_first_of("siel") != std::string::npos || argv[i].text[1] == '-')
        return {Uncertain(std::string(name) + " with a shell, an editor or an option we do not model", false)};
    return One(ArgvFrom(argv, SkipOptions(argv, 1, {"-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t"}), false));
  }
  if (In(name, {"chroot", "nsenter", "unshare", "su", "runuser", "ssh", "watch", "strace", "ltrace", "gdb", "script", "flock",
                "parallel", "chrt", "taskset", "prlimit", "systemd-run", "coproc", "pushd", "popd"})) {
    return {Uncertain(std::string(name) + " runs a command we do not unwrap", false)};
  }
  if (In(name, {".", "source"})) return {Uncertain("sources a script we cannot see")};
  if (In(name, {"alias", "unalias", "function", "trap", "enable", "hash", "let", "declare", "typeset", "mapfile",
                "readarray", "complete", "bind", "shopt", "fc", "history", "getopts"})) {
    return {Uncertain(std::string(name) + " changes what later words run")};
  }
  return {};
}

bool IsInertBuiltin(std::string_view name) {
  return In(name, {"cd", "pwd", "true", "false", ":", "echo", "printf", "test", "[", "export", "unset", "set", "shift", "exit",
                   "return", "break", "continue", "wait", "read", "umask", "type", "local", "readonly",
                   // Only when they run nothing (exec 2>/dev/null, command -v x): what they do
                   // run is judged as the command it is.
                   "exec", "command", "builtin"});
}

}  // namespace sandshim::policy
