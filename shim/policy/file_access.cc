#include "shim/policy/file_access.h"

#include <algorithm>

#include "shim/policy/options.h"
#include "shim/policy/program_files.h"
#include "shim/policy/wrappers.h"

namespace sandshim::policy {
namespace {

bool In(std::string_view s, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

// Unmodeled commands that only read or only write their operands.
bool IsReader(std::string_view n) {
  return In(n, {"less", "more", "diff", "cmp", "md5sum", "sha1sum", "sha256sum", "sha512sum", "base64", "xxd", "od",
                "hexdump", "strings", "file", "stat", "nl", "tac", "ls", "du", "rg", "zcat", "bat", "jq", "readlink",
                "realpath"});
}
bool IsWriter(std::string_view n) { return In(n, {"rmdir", "shred", "unlink"}); }

// Options of tools we do not model that move where relative operands are (tar -C, make -C,
// --directory) or read names from a file (tar -T, --files-from): a short letter in a cluster,
// or a long name by any prefix.
bool MovesOperands(const Word& w) {
  const auto& t = w.text;
  if (t.rfind("--", 0) == 0) {
    auto name = t.substr(2, t.find('=') - 2);
    if (name.empty()) return false;
    for (std::string_view l : {"directory", "chdir", "files-from", "work-tree", "git-dir"})
      if (l.rfind(name, 0) == 0) return true;
    return false;
  }
  return t.find_first_of("CT", 1) != std::string::npos;
}

// An unmodeled command's arguments: operands, and every path an option word may carry, for
// any access: the value after `=` of a long option, and each split of a short-option word
// (-f.env is -f .env or -f. env...: every suffix after its first letter). A word known only
// at run time stays one (it may be anything).
std::vector<Word> LooseOperands(const std::vector<Word>& argv, size_t skip_first_operands) {
  std::vector<Word> out;
  bool options = true;
  for (size_t i = 1; i < argv.size(); ++i) {
    const auto& w = argv[i];
    if (options && !w.dynamic && w.text == "--") { options = false; continue; }
    if (options && !w.dynamic && w.text.size() > 1 && w.text[0] == '-') {
      if (w.text[1] == '-') {
        auto eq = w.text.find('=');
        if (eq != std::string::npos && eq + 1 < w.text.size()) out.push_back(Word{.text = w.text.substr(eq + 1), .raw = w.raw});
        continue;
      }
      for (size_t k = 1; k < w.text.size(); ++k) out.push_back(Word{.text = w.text.substr(k), .raw = w.raw});
      continue;
    }
    if (skip_first_operands > 0) { --skip_first_operands; continue; }
    out.push_back(w);
  }
  return out;
}

// The same, where an option may move the directory or read names from a file: each relative
// operand is known only at run time (and so is a list of names).
std::vector<Word> LooseOperandsMoved(const std::vector<Word>& argv, size_t skip_first_operands) {
  auto out = LooseOperands(argv, skip_first_operands);
  bool options = true, moved = false;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (argv[i].text == "--") options = false;
    moved |= options && !argv[i].dynamic && argv[i].text.size() > 1 && argv[i].text[0] == '-' && MovesOperands(argv[i]);
  }
  if (!moved) return out;
  for (auto& w : out)
    if (!w.text.empty() && w.text[0] != '/') w.dynamic = w.expanded = true;
  out.push_back(Word{.text = "", .dynamic = true, .expanded = true, .raw = "<a directory or names an option gives>"});
  return out;
}

// Readers with no operand that read the directory they are in, whole: rg, git grep
// --no-index/--untracked, git add -A/-u (and git diff --cached after it), diff -r.
bool ReadsCwd(std::string_view name, const std::vector<Word>& argv) {
  if (name == "rg") return true;
  if (name != "git") return false;
  bool grep = false, add = false;
  for (size_t i = 1; i < argv.size(); ++i) {
    const auto& t = argv[i].text;
    grep |= t == "grep";
    add |= t == "add";
    if (grep && (t == "--no-index" || t == "--untracked")) return true;
    if (add && (t == "-A" || t == "--all" || t == "-u" || t == "--update")) return true;
  }
  return false;
}

// A file: URL names a path as plainly as the path does (`pip install file:///etc/x`,
// `-i file:///etc`, `git+file://localhost/x`, `x @ file:/x`, percent-escapes decoded as the
// tools decode them): its path, checked whole (a URL may name a directory read as an index).
// polred r4 R5. Empty when the word holds no such URL.
std::string FileUrlPath(const std::string& t) {
  auto at = t.find("file:");
  if (at == std::string::npos) return "";
  std::string_view rest = std::string_view(t).substr(at + 5);
  if (rest.rfind("//", 0) == 0) {
    rest.remove_prefix(2);
    auto slash = rest.find('/');  // the host part, usually empty or localhost
    if (slash == std::string_view::npos) return "";
    rest.remove_prefix(slash);
  }
  if (rest.empty() || rest[0] != '/') return "";
  std::string out;
  auto hex = [](char c) { return c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1; };
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && hex(rest[i + 1]) >= 0 && hex(rest[i + 2]) >= 0) {
      out += static_cast<char>(hex(rest[i + 1]) * 16 + hex(rest[i + 2]));
      i += 2;
    } else if (rest[i] == '?' || rest[i] == '#') {
      break;
    } else {
      out += rest[i];
    }
  }
  return out;
}

class Collector {
 public:
  void Add(const Word& w, std::optional<Access> a, bool recursive = false) {
    // A word known only at run time may be an option that turns any access into another.
    found.uses.push_back({w, w.expanded ? std::nullopt : a, recursive});
    if (auto path = FileUrlPath(w.text); !w.dynamic && !path.empty())
      found.uses.push_back({Word{.text = path, .raw = w.raw}, a, true});
  }
  void AddAll(const std::vector<Word>& ws, std::optional<Access> a, bool recursive = false) {
    for (const auto& w : ws) Add(w, a, recursive);
  }
  void Values(const ParsedArgs& args, std::initializer_list<std::string_view> names, Access a) {
    for (auto n : names) AddAll(args.Values(n), a);
  }
  void Uncertain(std::string why) {
    if (found.uncertain.empty()) found.uncertain = std::move(why);
  }
  PathsFound found;
};

bool Recursive(const ParsedArgs& a, std::initializer_list<std::string_view> names) {
  return std::any_of(names.begin(), names.end(), [&](std::string_view n) { return a.Has(n); });
}

void Grep(const ParsedArgs& a, Collector& c) {
  c.Values(a, {"-f", "--file", "--exclude-from"}, Access::kRead);
  bool pattern_given = Recursive(a, {"-e", "--regexp", "-f", "--file"});
  bool recursive = Recursive(a, {"-r", "-R", "--recursive", "--dereference-recursive"});
  // -d recurse (--directories=recurse) is -r; any other value but read and skip is unknown.
  for (const auto& v : a.Values("-d"))
    recursive |= v.dynamic || (v.text != "read" && v.text != "skip");
  for (const auto& v : a.Values("--directories"))
    recursive |= v.dynamic || (v.text != "read" && v.text != "skip");
  std::vector<Word> files(a.operands.begin() + (pattern_given || a.operands.empty() ? 0 : 1), a.operands.end());
  if (files.empty() && recursive) files.push_back(Word{.text = ".", .raw = "."});  // grep -r reads the directory it is in
  c.AddAll(files, Access::kRead, recursive);
}

// cp/mv/ln: -t DIR receives every operand; otherwise the last operand does.
void CopyLike(std::string_view name, const ParsedArgs& a, Collector& c) {
  auto targets = a.Values("-t");
  auto more = a.Values("--target-directory");
  targets.insert(targets.end(), more.begin(), more.end());
  std::vector<Word> sources = a.operands;
  if (targets.empty() && !sources.empty()) {
    targets.push_back(sources.back());
    sources.pop_back();
  }
  bool recursive = name == "mv" || Recursive(a, {"-r", "-R", "-a", "--recursive", "--archive"});
  c.AddAll(targets, Access::kWrite, recursive);
  c.AddAll(sources, Access::kRead, recursive);
  if (name == "mv") c.AddAll(sources, Access::kWrite, true);  // removed from where they were
}

void Dd(const std::vector<Word>& argv, Collector& c) {
  for (size_t i = 1; i < argv.size(); ++i) {
    const auto& w = argv[i];
    auto eq = w.text.find('=');
    if (w.dynamic && (eq == std::string::npos || w.raw.find('=') > w.raw.find('$'))) return c.Uncertain("dd operand known only at run time");
    std::string key = w.text.substr(0, eq == std::string::npos ? 0 : eq);
    Word value{.text = eq == std::string::npos ? "" : w.text.substr(eq + 1), .dynamic = w.dynamic, .expanded = w.expanded, .raw = w.raw};
    if (key == "if") c.Add(value, Access::kRead);
    else if (key == "of") c.Add(value, Access::kWrite);
    else if (!In(key, {"bs", "ibs", "obs", "cbs", "skip", "iseek", "seek", "oseek", "count", "status", "conv", "iflag", "oflag"}))
      return c.Uncertain("dd operand we do not model: " + w.raw);
  }
}

// The tools options.h models: their operands and path-valued options, as each reads them.
void Modeled(std::string_view name, const std::vector<Word>& argv, const ParsedArgs& a, Collector& c) {
  if (!a.uncertain.empty()) return c.Uncertain(std::string(name) + ": " + a.uncertain);
  if (name == "grep") return Grep(a, c);
  if (name == "sort") {
    if (Recursive(a, {"--compress-program"})) return c.Uncertain("sort --compress-program runs a program");
    if (Recursive(a, {"--files0-from"})) return c.Uncertain("sort --files0-from reads names we cannot see");
    c.Values(a, {"-o", "--output", "-T", "--temporary-directory"}, Access::kWrite);
    c.Values(a, {"--random-source"}, Access::kRead);
    return c.AddAll(a.operands, Access::kRead);
  }
  if (name == "uniq") {
    if (a.operands.size() > 2) return c.Uncertain("uniq with more than two operands");
    if (!a.operands.empty()) c.Add(a.operands[0], Access::kRead);
    if (a.operands.size() == 2) c.Add(a.operands[1], Access::kWrite);
    return;
  }
  if (In(name, {"cp", "mv", "ln"})) {
    if (name == "ln") return CopyLike(name, a, c), c.AddAll(a.operands, Access::kRead);  // a link reaches its target
    return CopyLike(name, a, c);
  }
  if (In(name, {"tee", "mkdir", "rm"})) return c.AddAll(a.operands, Access::kWrite, name == "rm");
  if (In(name, {"touch", "truncate"})) {
    c.Values(a, {"-r", "--reference"}, Access::kRead);
    return c.AddAll(a.operands, Access::kWrite);
  }
  if (name == "time") return c.Values(a, {"-o", "--output"}, Access::kWrite);  // the rest is its command
  if (name == "xargs") return c.Values(a, {"-a", "--arg-file"}, Access::kRead);
  if (In(name, {"head", "tail", "cat", "wc", "cut"})) return c.AddAll(a.operands, Access::kRead);
  (void)argv;
}

// chmod MODE FILE..., chown OWNER FILE...: a mode may start with '-' (chmod -w f).
void ModeLike(const std::vector<Word>& argv, Collector& c) {
  bool reference = false, recursive = false;
  std::vector<Word> ops;
  for (size_t i = 1; i < argv.size(); ++i) {
    const auto& t = argv[i].text;
    if (!argv[i].dynamic && t.rfind("--reference=", 0) == 0) {
      reference = true;
      c.Add(Word{.text = t.substr(12), .raw = argv[i].raw}, Access::kRead);
    } else if (!argv[i].dynamic && (t == "--recursive" || (t.size() > 1 && t[0] == '-' && t.find_first_not_of("cfvRhHLP", 1) == std::string::npos))) {
      recursive |= t == "--recursive" || t.find('R') != std::string::npos;
    } else if (!argv[i].dynamic && t.rfind("--", 0) == 0) {
      if (t != "--" && !In(t, {"--changes", "--silent", "--quiet", "--verbose", "--no-preserve-root", "--preserve-root", "--dereference", "--no-dereference"}))
        return c.Uncertain("an option we do not model: " + argv[i].raw);
    } else {
      ops.push_back(argv[i]);
    }
  }
  if (!reference && !ops.empty()) ops.erase(ops.begin());
  c.AddAll(ops, Access::kWrite, recursive);
}

void Find(const std::vector<Word>& argv, Collector& c) {
  size_t i = 1;
  for (; i < argv.size() && !argv[i].dynamic && !argv[i].text.empty() && std::string_view("-()!").find(argv[i].text[0]) == std::string_view::npos; ++i)
    c.Add(argv[i], Access::kRead);
  bool deletes = false;
  for (; i < argv.size(); ++i) {
    const auto& t = argv[i].text;
    if (t == "-delete") deletes = true;
    if (In(t, {"-fprint", "-fprint0", "-fls", "-fprintf"}) && i + 1 < argv.size()) c.Add(argv[i + 1], Access::kWrite);
    if (t == "-files0-from") c.Uncertain("find -files0-from reads names we cannot see");
  }
  if (deletes)
    for (size_t k = 1; k < argv.size() && !argv[k].text.empty() && argv[k].text[0] != '-'; ++k) c.Add(argv[k], Access::kWrite, true);
}

}  // namespace

PathsFound PathsUsed(std::string_view name, const std::vector<Word>& argv) {
  Collector c;
  // A glob may expand to a file named like an option (--compress-program=x, --checkpoint-action=exec=x).
  if (In(name, {"sort", "tar", "rsync", "cp", "mv", "ln", "chmod", "chown", "chgrp", "zip", "find", "xargs"})) {
    for (size_t i = 1; i < argv.size() && argv[i].text != "--"; ++i)
      if (argv[i].dynamic && !argv[i].expanded) {
        c.Uncertain("a glob that may expand to options: " + argv[i].raw);
        return c.found;
      }
  }
  // Interpreters of their own program text, which names files (program_files.h).
  if (name == "sed" || In(name, {"awk", "gawk", "mawk", "nawk"})) {
    auto found = name == "sed" ? SedPaths(argv) : AwkPaths(argv);
    // Asked about: every word may still be a path a deny rule names (awk -E secret.txt).
    if (!found.uncertain.empty())
      for (const auto& w : LooseOperands(argv, 0)) found.uses.push_back({w, std::nullopt, false});
    return found;
  }
  std::string_view grammar = In(name, {"egrep", "fgrep"}) ? "grep" : name;
  if (const OptionGrammar* g = GrammarOf(grammar); g && !In(name, {"env", "nice", "timeout", "stdbuf", "setsid", "nohup", "exec", "command", "ionice"})) {
    Modeled(grammar, argv, ParseOptions(*g, argv), c);
  } else if (name == "dd") {
    Dd(argv, c);
  } else if (In(name, {"chmod", "chown", "chgrp"})) {
    ModeLike(argv, c);
  } else if (name == "find") {
    Find(argv, c);
  } else if (In(name, {"install", "rsync", "scp"})) {
    auto ops = LooseOperands(argv, 0);
    if (!ops.empty()) {
      c.Add(ops.back(), Access::kWrite, true);
      ops.pop_back();
    }
    c.AddAll(ops, Access::kRead, true);
  } else if (IsInertBuiltin(name) && name != "exec" && name != "command" && name != "builtin") {
    // Their words are text, names and numbers, never files they open: a path named is still
    // checked against deny rules, a word known only at run time is nothing to check.
    // Only absolute words: a relative one is text ("echo first" in a --shell exec, whose
    // directory is unknown, must not ask).
    for (const auto& w : LooseOperands(argv, 0))
      if (!w.dynamic && !w.text.empty() && w.text[0] == '/') c.Add(w, std::nullopt);
  } else if (IsReader(name)) {
    auto ops = LooseOperandsMoved(argv, 0);
    bool recursive = name == "rg" || (name == "diff" && std::any_of(argv.begin() + 1, argv.end(), [](const Word& w) {
                       return w.text.rfind("--rec", 0) == 0 || (w.text.size() > 1 && w.text[0] == '-' && w.text[1] != '-' && w.text.find('r') != std::string::npos);
                     }));
    if (ReadsCwd(name, argv)) ops.push_back(Word{.text = ".", .raw = "."});
    c.AddAll(ops, Access::kRead, recursive);
  } else if (IsWriter(name)) {
    c.AddAll(LooseOperandsMoved(argv, 0), Access::kWrite);
  } else {
    auto ops = LooseOperandsMoved(argv, 0);
    if (ReadsCwd(name, argv)) ops.push_back(Word{.text = ".", .raw = "."});
    c.AddAll(ops, std::nullopt, true);  // a directory may be read or written whole (tar, zip)
    if (name == "git") AddGitObjectReads(argv, c.found);
  }
  return c.found;
}

}  // namespace sandshim::policy
