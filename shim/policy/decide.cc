#include "shim/policy/decide.h"

#include <algorithm>
#include <cctype>

#include "shim/policy/builtin_names.h"
#include "shim/policy/file_access.h"
#include "shim/policy/git_commands.h"
#include "shim/policy/packages.h"
#include "shim/policy/runs_command.h"
#include "shim/policy/shell_match.h"
#include "shim/policy/shell_parse.h"
#include "shim/policy/wrappers.h"

namespace sandshim::policy {
namespace {

constexpr int kMaxDepth = 8;  // sh -c 'sh -c "..."' deeper than this: ask

std::string_view AccessName(Access a) { return a == Access::kRead ? "read" : "write"; }

// Where `cd [-L|-P|-e|-@]... [--] [DIR]` goes: nullopt when unknown ($HOME, $OLDPWD, a
// variable, an option we do not know).
std::optional<std::string> CdTarget(const std::vector<Word>& words) {
  size_t i = 1;
  for (; i < words.size() && !words[i].dynamic && words[i].text.size() > 1 && words[i].text[0] == '-'; ++i) {
    if (words[i].text == "--") { ++i; break; }
    if (words[i].text.find_first_not_of("LPe@", 1) != std::string::npos) return std::nullopt;
  }
  if (i + 1 != words.size() || words[i].dynamic || words[i].text == "-") return std::nullopt;
  return words[i].text;
}

class Judge {
 public:
  Judge(const Policy& p, ExecContext& ctx) : p_(p), ctx_(ctx) {}

  void Script(const Word& script, int depth) {
    if (depth > kMaxDepth) return Raise(Decision::kAsk, "", script.text, "commands nested too deep");
    if (script.dynamic) return Raise(Decision::kAsk, "", script.raw, "the script is known only at run time");
    auto parsed = ParseShell(script.text);
    for (const auto& why : parsed.uncertain) Raise(Decision::kAsk, "", script.text, "cannot be judged statically: " + why);
    for (const auto& c : parsed.commands) Simple(c, depth);
  }

  void Argv(const std::vector<Word>& argv, int depth) {
    if (argv.empty()) return;
    auto text = JoinWords(argv);
    if (depth > kMaxDepth) return Raise(Decision::kAsk, "", text, "commands nested too deep");
    if (argv[0].dynamic) return Raise(Decision::kAsk, "", text, "the command name is known only at run time");
    auto cn = NameOf(argv[0]);
    std::vector<Word> words = argv;
    words[0].text = cn.name;
    Refusals(words, text);
    Packages(cn.name, words, text);
    auto paths = PathsUsed(cn.name, words);
    if (!paths.uncertain.empty()) Raise(Decision::kAsk, "", text, "cannot be judged statically: " + paths.uncertain);
    for (const auto& use : paths.uses) Path(use.word, use.access, text, use.recursive);
    if (cn.name == "cd") ctx_.cwd.Cd(CdTarget(words));
    bool needs_own_rule = true;
    // A wrapper is unwrapped only when it is the system's own (a bare name or a path in the
    // system bin directories): ./tools/env or /tmp/sh may be any program, and is judged as
    // the program it is, never as what its name would run (polred2 F3).
    auto inners = cn.system ? InnerCommands(cn.name, words) : std::vector<Inner>{};
    for (const auto& in : inners) {
      if (!in.uncertain.empty()) Raise(Decision::kAsk, "", text, in.uncertain);
      for (const auto& a : in.assignments) Assignment(a, text);
      if (in.kind == Inner::Kind::kScript) Script(in.script, depth + 1);
      else Argv(in.argv, depth + 1);
      needs_own_rule = needs_own_rule && (!in.transparent || !in.uncertain.empty());
    }
    if (inners.empty() || needs_own_rule) OwnRule(cn, words, text);
  }

  // The exec's own environment (session exec -e NAME=V, --env-file) is judged as a prefix
  // assignment of the whole command (polred2 F11).
  void Environment(const std::vector<std::string>& env, const std::string& text) {
    for (const auto& kv : env) Assignment(Word{.text = kv, .raw = kv}, text);
  }

  Verdict verdict;

 private:
  void Raise(Decision d, std::string rule, const std::string& command, std::string reason) {
    if (d == Decision::kAsk) d = p_.unmatched;
    if (d <= verdict.decision) return;  // the first of the strongest decides
    verdict = {d, std::move(rule), command, std::move(reason)};
  }

  void Simple(const SimpleCommand& c, int depth) {
    if (c.started_in) {
      // Judged in the one directory it surely starts in; a cd it makes joins the rest.
      CwdSet before = ctx_.cwd;
      ctx_.cwd = CwdSet(ctx_.cwd.Resolve(*c.started_in).paths.front());
      SimpleIn(c, depth);
      before.Merge(ctx_.cwd);
      ctx_.cwd = before;
      return;
    }
    SimpleIn(c, depth);
  }

  void SimpleIn(const SimpleCommand& c, int depth) {
    auto text = JoinWords(c.argv);
    // `IFS= read -r line`: IFS given to the read builtin only changes how it splits its input.
    bool read = !c.argv.empty() && !c.argv[0].dynamic && c.argv[0].text == "read";
    for (const auto& a : c.assignments)
      if (!(read && a.text.rfind("IFS=", 0) == 0)) Assignment(a, text.empty() ? a.raw : text);
    for (const auto& r : c.redirects) {
      // `<>` opens for reading and writing: both rules apply.
      if (r.kind == RedirectKind::kRead || r.kind == RedirectKind::kReadWrite) Path(r.target, Access::kRead, text);
      if (r.kind == RedirectKind::kWrite || r.kind == RedirectKind::kReadWrite) Path(r.target, Access::kWrite, text);
    }
    Argv(c.argv, depth);
  }

  void Assignment(const Word& a, const std::string& text) {
    if (!IsInertAssignment(a.text, !a.dynamic)) Raise(Decision::kAsk, "", text, "assigning " + a.text.substr(0, a.text.find('=')) + " may change what runs (not a variable known to be inert)");
  }

  void Refusals(const std::vector<Word>& words, const std::string& text) {
    for (const auto& r : p_.deny.shell) {
      auto m = MatchRefusal(r, words);
      if (m == Match::kYes) return Raise(Decision::kDeny, r.text, text, "");
      if (m == Match::kMaybe) Raise(Decision::kAsk, r.text, text, "may match a deny rule at run time");
    }
    for (const auto& r : p_.ask.shell)
      if (MatchRefusal(r, words) != Match::kNo) Raise(Decision::kAsk, r.text, text, "");
    if (auto why = RunsCommandOption(words); !why.empty()) return Raise(Decision::kAsk, "", text, why);
    if (words[0].text != "git") return;
    if (auto why = GitRunsCommand(words); !why.empty()) return Raise(Decision::kAsk, "", text, why);
    for (const auto* rules : {&p_.deny.shell, &p_.ask.shell})
      for (const auto& r : *rules)
        if (r.words.size() > 1 && r.words[0] == "git")
          if (auto why = GitIndirection(words); !why.empty()) return Raise(Decision::kAsk, r.text, text, why);
  }

  void Packages(const std::string& name, const std::vector<Word>& words, const std::string& text) {
    auto install = InstallOf(name, words);
    if (!install) return;
    std::vector<std::string> blocked;
    for (const char* key : {install->manager.c_str(), "*"})
      if (auto it = p_.blocked_packages.find(key); it != p_.blocked_packages.end())
        blocked.insert(blocked.end(), it->second.begin(), it->second.end());
    for (const auto& pkg : install->packages)
      if (std::find(blocked.begin(), blocked.end(), pkg) != blocked.end())
        return Raise(Decision::kDeny, "sources(blocked_packages:" + install->manager + ":" + pkg + ")", text, "");
    if (install->unknown_packages && !blocked.empty())
      Raise(Decision::kAsk, "", text, "installs packages that cannot be checked against blocked_packages");
  }

  bool HasFileRules(std::optional<Access> a) const {
    if (a) return p_.deny.Has(*a) || p_.ask.Has(*a) || p_.allow.Has(*a);
    return HasFileRules(Access::kRead) || HasFileRules(Access::kWrite);
  }

  // A path the command reads or writes (access nullopt: either, from an unknown command);
  // recursive: everything below it too, so a rule on something inside it asks.
  void Path(const Word& w, std::optional<Access> access, const std::string& text, bool recursive = false) {
    if (w.dynamic && !w.expanded) {
      // A glob names entries below its literal directory: judged as that directory, whole.
      auto wild = w.text.find_first_of("*?[");
      auto slash = w.text.rfind('/', wild);
      std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : w.text.substr(0, slash);
      return Path(Word{.text = dir, .raw = w.raw}, access, text, true);
    }
    auto resolved = w.dynamic ? Resolution{{}, true} : ctx_.cwd.Resolve(w.text);
    if (resolved.unknown && HasFileRules(access)) Raise(Decision::kAsk, "", text, "a path known only at run time: " + w.raw);
    for (const auto& path : resolved.paths) {
      for (const auto& r : p_.deny.file) {
        if ((access && r.access != *access) || IsHarmlessDevice(path)) continue;
        if (GlobMatch(r.glob, path)) return Raise(Decision::kDeny, r.text, text, "");
        if (recursive && MayMatchBelow(r.glob, path)) Raise(Decision::kAsk, r.text, text, "uses what is below " + path);
      }
      for (const auto& r : p_.ask.file)
        if ((!access || r.access == *access) && (GlobMatch(r.glob, path) || (recursive && MayMatchBelow(r.glob, path))))
          Raise(Decision::kAsk, r.text, text, "");
      if (access != Access::kRead)
        for (const auto& g : ctx_.guarded)
          if (GlobMatch(g + "/**", path)) Raise(Decision::kAsk, "", text, "writes the shell's saved state: " + path);
      if (!access || !p_.allow.Has(*access) || IsHarmlessDevice(path)) continue;
      bool allowed = std::any_of(p_.allow.file.begin(), p_.allow.file.end(),
                                 [&](const FileRule& r) { return r.access == *access && GlobMatch(r.glob, path); });
      if (!allowed) Raise(Decision::kAsk, "", text, "no file rule allows " + std::string(AccessName(*access)) + " of " + path);
    }
  }

  void OwnRule(const CommandName& cn, const std::vector<Word>& words, const std::string& text) {
    if (!cn.system) return Raise(Decision::kAsk, "", text, "not a system command: " + words[0].raw);
    if (IsInertBuiltin(cn.name)) {
      // bash evaluates a name's subscript as arithmetic, with its $( ): test -v 'a[$(x)]',
      // printf -v, read, unset. Only echo never takes a name.
      if (cn.name != "echo")
        for (size_t i = 1; i < words.size(); ++i)
          if (words[i].text.find('[') != std::string::npos && words[i].text.find_first_of("$`") != std::string::npos)
            return Raise(Decision::kAsk, "", text, "a subscript bash may evaluate: " + words[i].raw);
      auto names = NamesSetBy(cn.name, words);
      if (!names.uncertain.empty()) return Raise(Decision::kAsk, "", text, names.uncertain);
      for (const auto& n : names.names) Assignment(n, text);
      return;
    }
    for (const auto& r : p_.allow.shell)
      if (MatchAllow(r, words) == Match::kYes) return;
    Raise(Decision::kAsk, "", text, "no rule allows it");
  }

  const Policy& p_;
  ExecContext& ctx_;
};

Verdict Finish(Judge& j, const std::string& whole) {
  if (j.verdict.command.empty()) j.verdict.command = whole;
  return j.verdict;
}

}  // namespace

Verdict DecideArgv(const Policy& p, const std::vector<std::string>& argv, ExecContext ctx) {
  std::vector<Word> words;
  for (const auto& a : argv) words.push_back(Word{.text = a, .raw = a});
  Judge j(p, ctx);
  j.Environment(ctx.env, JoinWords(words));
  j.Argv(words, 0);
  return Finish(j, JoinWords(words));
}

Verdict DecideScript(const Policy& p, std::string_view script, ExecContext ctx) {
  Judge j(p, ctx);
  j.Environment(ctx.env, std::string(script));
  j.Script(Word{.text = std::string(script), .raw = std::string(script)}, 0);
  return Finish(j, std::string(script));
}

}  // namespace sandshim::policy
