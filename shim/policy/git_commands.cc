// git's ways to run what no rule names (polred r3, r4): aliases and helpers under names git
// does not have, configuration keys that hold a command, options and subcommands whose value
// git runs through sh. Pure code over the parser's words.
#include "shim/policy/git_commands.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string_view>

namespace sandshim::policy {
namespace {

// git's own ways to run a subcommand under another name: an alias or autocorrect from -c /
// --config-env, another exec path, or a name git does not have (an alias in a config file,
// a helper on PATH, send-pack). A rule naming `git X` cannot see through them: they ask.
bool KnownGitSubcommand(std::string_view t) {
  static constexpr std::string_view kKnown[] = {
      "add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bundle", "cat-file", "check-attr",
      "check-ignore", "checkout", "cherry", "cherry-pick", "clean", "clone", "commit", "config", "count-objects",
      "describe", "diff", "diff-files", "diff-index", "diff-tree", "difftool", "fetch", "for-each-ref",
      "format-patch", "fsck", "gc", "grep", "help", "init", "log", "ls-files", "ls-remote", "ls-tree", "merge",
      "merge-base", "mergetool", "mv", "notes", "pull", "push", "range-diff", "rebase", "reflog", "remote", "repack",
      "reset", "restore", "rev-list", "rev-parse", "revert", "rm", "shortlog", "show", "show-ref", "sparse-checkout",
      "stash", "status", "submodule", "switch", "symbolic-ref", "tag", "update-index", "update-ref", "var",
      "version", "whatchanged", "worktree", "write-tree"};
  return std::find(std::begin(kKnown), std::end(kKnown), t) != std::end(kKnown);
}

// A configuration key that makes git run nothing and read no file, whatever its value: what
// `git -c` is used for in scripts. Any other key may be a command (core.pager, core.sshCommand,
// core.fsmonitor, diff.external, alias.x='!cmd', filter.*, credential.helper, gpg.program...)
// or a file of more keys (include.path): under shell(git:*) `git -c core.pager=CMD log` ran CMD.
bool InertGitKey(std::string key) {
  std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static constexpr std::string_view kKeys[] = {"user.name", "user.email", "core.quotepath", "core.autocrlf", "core.safecrlf",
                                               "core.filemode", "init.defaultbranch", "pull.rebase", "pull.ff",
                                               "diff.renames", "diff.noprefix", "merge.conflictstyle", "column.ui",
                                               "fetch.prune", "rebase.autosquash", "commit.gpgsign", "tag.gpgsign"};
  if (key.rfind("color.", 0) == 0 || key.rfind("advice.", 0) == 0) return true;
  return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

// `git config` that sets a key which may run a command later (core.fsmonitor, alias.x='!cmd':
// the next plain `git status` runs it) or opens an editor (-e). Reading (`--get`, `-l`, one
// operand) and keys known inert pass.
std::string GitConfigWrites(const std::vector<Word>& words, size_t sub) {
  std::vector<const Word*> operands;
  for (size_t k = sub + 1; k < words.size(); ++k) {
    const auto& t = words[k].text;
    if (words[k].dynamic) return "git config with a word known only at run time: " + words[k].raw;
    if (t == "-e" || t.rfind("--edit", 0) == 0) return "git config --edit runs an editor";
    if (t == "-l" || t.rfind("--get", 0) == 0 || t.rfind("--list", 0) == 0 || t.rfind("--show", 0) == 0 || t == "--unset" ||
        t == "--unset-all" || t == "--remove-section" || t == "list" || t == "get" || t == "unset")
      return "";
    if (t == "-f" || t == "--file" || t == "--blob" || t == "--type" || t == "--default" || t == "--comment") { ++k; continue; }
    if (t.empty() || t[0] != '-') operands.push_back(&words[k]);
  }
  if (!operands.empty() && operands[0]->text == "set") operands.erase(operands.begin());
  if (operands.size() < 2) return "";
  return InertGitKey(operands[0]->text) ? "" : "git config sets a key that may run a command: " + operands[0]->text;
}

}  // namespace

std::string GitIndirection(const std::vector<Word>& words) {
  for (size_t i = 1; i < words.size(); ++i) {
    const auto& t = words[i].text;
    if (words[i].dynamic) return "";  // a deny rule's kMaybe already asks
    if (t == "-c" || t.rfind("--config-env", 0) == 0 || t.rfind("--exec-path", 0) == 0 || (t.rfind("-c", 0) == 0 && t.size() > 2))
      return "git -c / --config-env / --exec-path may run a subcommand under another name: " + t;
    if (t == "-C" || t == "--git-dir" || t == "--work-tree" || t == "--namespace") { ++i; continue; }
    if (!t.empty() && t[0] == '-') continue;
    if (!KnownGitSubcommand(t)) return "a git subcommand we do not know (an alias, a helper, send-pack): " + t;
    return "";
  }
  return "";
}

// git options and subcommands whose value is a command git runs through sh (polred r4 R3):
// as visible as `find -exec` or sed's `e`, but what they run is not unwrapped, so under
// `shell(git:*)` they ran whatever no rule allows. git reads clusters (`-yx CMD`) and long
// options by any unambiguous prefix (`--upload=CMD`): any spelling that may be one asks.
std::string GitRunsCommand(const std::vector<Word>& words) {
  size_t i = 1;
  for (; i < words.size(); ++i) {  // git's own options, as GitIndirection skips them
    const auto& t = words[i].text;
    if (words[i].dynamic) return "a git option known only at run time: " + words[i].raw;
    std::string config;  // -c KEY=V, -cKEY=V, --config-env=KEY=ENV
    if ((t == "-c" || t == "--config-env") && i + 1 < words.size()) config = words[++i].dynamic ? "?" : words[i].text;
    else if (t.rfind("-c", 0) == 0 && t.size() > 2) config = t.substr(2);
    else if (t.rfind("--config-env=", 0) == 0) config = t.substr(13);
    else if (t.rfind("--exec-path", 0) == 0 && t.size() > 11) return "git runs its helpers from another path: " + t;
    if (!config.empty()) {
      if (!InertGitKey(config.substr(0, config.find('=')))) return "git configuration that may run a command: " + config;
      continue;
    }
    if (t == "-C" || t == "--git-dir" || t == "--work-tree" || t == "--namespace") { ++i; continue; }
    if (t.empty() || t[0] != '-') break;
  }
  if (i >= words.size()) return "";
  const std::string& sub = words[i].text;
  if (sub == "filter-branch") return "git filter-branch runs its filters through sh";
  // An alias (`git config alias.x '!cmd'` earlier) or a git-NAME helper on PATH runs what
  // configuration says: only the subcommands git has pass.
  if (!KnownGitSubcommand(sub)) return "a git subcommand we do not know (an alias, a helper): " + sub;
  if (sub == "config") return GitConfigWrites(words, i);
  auto short_has = [](const std::string& t, std::string_view letters) {
    return t.size() > 1 && t[0] == '-' && t[1] != '-' && t.find_first_of(letters, 1) != std::string::npos;
  };
  auto long_is = [](const std::string& t, std::initializer_list<std::string_view> names) {
    if (t.rfind("--", 0) != 0 || t.size() < 4) return false;
    auto n = std::string_view(t).substr(2, t.find('=') == std::string::npos ? std::string::npos : t.find('=') - 2);
    return std::any_of(names.begin(), names.end(), [&](std::string_view o) { return o.rfind(n, 0) == 0; });
  };
  for (size_t k = i + 1; k < words.size(); ++k) {
    const auto& t = words[k].text;
    if (t == "--") break;
    if (words[k].dynamic && (sub == "submodule" || sub == "bisect")) return "a git subcommand known only at run time";
    bool runs = long_is(t, {"upload-pack", "receive-pack"}) ||
                (sub == "rebase" && (short_has(t, "x") || long_is(t, {"exec"}))) ||
                (sub == "difftool" && (short_has(t, "x") || long_is(t, {"extcmd"}))) ||
                (sub == "grep" && (short_has(t, "O") || long_is(t, {"open-files-in-pager"}))) ||
                (sub == "clone" && short_has(t, "u")) || ((sub == "archive" || sub == "push") && long_is(t, {"exec"})) ||
                (sub == "submodule" && t == "foreach") || (sub == "bisect" && t == "run");
    if (runs) return "git runs a command given here through sh: " + words[k].raw;
  }
  return "";
}

}  // namespace sandshim::policy
