#include "shim/policy/program_files.h"

#include <algorithm>
#include <cctype>

#include "shim/policy/options.h"

namespace sandshim::policy {
namespace {

bool In(std::string_view s, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

void Uncertain(PathsFound& f, std::string why) {
  if (f.uncertain.empty()) f.uncertain = std::move(why);
}

// A sed program, read as GNU sed 4.9 reads it: each command with its addresses, its text
// argument to the end of the line (a, i, c, r, R, w, W, labels), s and y with their
// delimiters. Anything else stops the reading: uncertain.
class SedProgram {
 public:
  SedProgram(std::string_view text, PathsFound& out) : t_(text), out_(out) {}

  void Read() {
    while (Skip(" \t\n;}{"), p_ < t_.size()) {
      if (t_[p_] == '#') { ToEol(); continue; }
      if (!Address() || (Skip(" \t"), Accept(',') && !Address())) return (void)Fail("an address");
      while (Skip(" \t"), Accept('!')) {}
      if (p_ >= t_.size()) return (void)Fail("a command");
      char c = t_[p_++];
      if (!Command(c)) return;
      if (c == '{') continue;  // a block: its first command follows at once
      Skip(" \t");
      if (p_ < t_.size() && !In(std::string_view(&t_[p_], 1), {";", "\n", "}", "#"})) return (void)Fail("text after a command");
    }
  }

 private:
  bool Command(char c) {
    if (std::string_view("{}=dDgGhHnNpPxzF").find(c) != std::string_view::npos) return true;
    if (std::string_view("lqQL").find(c) != std::string_view::npos) return Skip(" \t"), Digits(), true;
    if (std::string_view(":btTv").find(c) != std::string_view::npos) return Label(), true;
    if (std::string_view("aic").find(c) != std::string_view::npos) return ToEol(), true;
    if (std::string_view("rRwW").find(c) != std::string_view::npos) return File(c == 'r' || c == 'R' ? Access::kRead : Access::kWrite);
    if (c == 's') return Substitute();
    if (c == 'y') return Delimited(2) || Fail("y");
    if (c == 'e') return Fail("e runs a command");
    return Fail(std::string("the command ") + c);
  }

  bool Substitute() {
    if (!Delimited(2)) return Fail("s");
    for (; p_ < t_.size(); ++p_) {
      char f = t_[p_];
      if (f == 'w') return ++p_, File(Access::kWrite);
      if (f == 'e') return Fail("s///e runs a command");
      if (std::string_view("gpiImM0123456789").find(f) == std::string_view::npos) break;
    }
    return true;
  }

  // DELIM text DELIM text DELIM (n parts), escapes skipped; a newline inside ends nothing.
  bool Delimited(int n) {
    if (p_ >= t_.size() || t_[p_] == '\\' || t_[p_] == '\n') return false;
    char d = t_[p_++];
    for (int k = 0; k < n; ++k) {
      while (p_ < t_.size() && t_[p_] != d) p_ += t_[p_] == '\\' ? 2 : 1;
      if (p_ >= t_.size()) return false;
      ++p_;
    }
    return true;
  }

  bool Address() {
    if (p_ >= t_.size()) return true;
    char c = t_[p_];
    if (c == '$') return ++p_, true;
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '~') {
      ++p_;
      Digits();
      if (Accept('~')) Digits();
      return true;
    }
    if (c == '/' || c == '\\') {
      if (c == '\\') ++p_;
      if (!Delimited(1)) return false;
      while (p_ < t_.size() && (t_[p_] == 'I' || t_[p_] == 'M')) ++p_;
    }
    return true;
  }

  // r/R/w/W FILE: the rest of the line, `;` included, is the file name.
  bool File(Access a) {
    Skip(" \t");
    size_t start = p_;
    ToEol();
    std::string name(t_.substr(start, p_ - start));
    if (name.empty()) return Fail("a file command without its file");
    out_.uses.push_back({Word{.text = name, .raw = name}, a, false});
    return true;
  }

  void Label() {
    Skip(" \t");
    while (p_ < t_.size() && t_[p_] != ';' && t_[p_] != '\n') ++p_;
  }
  void ToEol() {
    while (p_ < t_.size() && t_[p_] != '\n') p_ += t_[p_] == '\\' ? 2 : 1;
    p_ = std::min(p_, t_.size());
  }
  void Digits() {
    while (p_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[p_]))) ++p_;
  }
  void Skip(std::string_view set) {
    while (p_ < t_.size() && set.find(t_[p_]) != std::string_view::npos) ++p_;
  }
  bool Accept(char c) { return p_ < t_.size() && t_[p_] == c ? (++p_, true) : false; }
  bool Fail(std::string what) {
    Uncertain(out_, "a sed program we cannot read exactly (" + what + ")");
    p_ = t_.size();
    return false;
  }

  std::string_view t_;
  PathsFound& out_;
  size_t p_ = 0;
};

// GNU sed 4.9's options (sed --help).
constexpr OptionGrammar kSed{"nrEszub", "efl", "i",
                             "quiet,silent,debug,expression=,file=,follow-symlinks,in-place?,line-length=,null-data,"
                             "zero-terminated,posix,regexp-extended,separate,sandbox,unbuffered,binary,help,version",
                             false};

// awk programs that open or run something: getline (from a file or a command), print/printf
// with `>` or `|`, system(), gawk's @include/@load and its indirect calls (`@f("id")` with
// f = "system"), and ARGV/ARGC, which choose the files awk reads after BEGIN
// (`BEGIN{ARGV[1]="/etc/shadow"; ARGC=2} 1`: polred r4 R6). `||` is only logic.
std::string AwkUnsafe(std::string text) {
  for (size_t at; (at = text.find("||")) != std::string::npos;) text.replace(at, 2, "  ");
  for (std::string_view w : {"getline", "system", "|", "ARGV", "ARGC"})
    if (text.find(w) != std::string::npos) return std::string(w);
  for (size_t at = 0; (at = text.find('@', at)) != std::string::npos; ++at)
    if (at + 1 < text.size() && (std::isalpha(static_cast<unsigned char>(text[at + 1])) || text[at + 1] == '_'))
      return "gawk's @" + text.substr(at + 1, 8);
  for (size_t at = 0; (at = text.find("print", at)) != std::string::npos; at += 5) {
    auto end = text.find_first_of(";}\n", at);
    if (text.substr(at, end == std::string::npos ? std::string::npos : end - at).find('>') != std::string::npos)
      return "print >";
  }
  return "";
}

// A git object name that names a path: REV:PATH, :PATH, :N:PATH (not a URL, an option, or
// `REV:` alone, the whole tree: "." ). PATH is from the top of the repository, which is the
// directory the command is in or one above it: each is checked.
void ObjectPath(const Word& w, PathsFound& f) {
  const auto& t = w.text;
  auto colon = t.find(':');
  if (colon == std::string::npos || t.empty() || t[0] == '-' || t.find("://") != std::string::npos) return;
  std::string path = t.substr(colon + 1);
  if (colon == 0 && path.size() > 1 && std::isdigit(static_cast<unsigned char>(path[0])) && path[1] == ':') path = path.substr(2);
  bool relative = path.rfind("./", 0) == 0 || path.rfind("../", 0) == 0;
  if (w.dynamic) return f.uses.push_back({Word{.text = path, .dynamic = true, .expanded = true, .raw = w.raw}, Access::kRead, true});
  if (path.empty()) path = ".";
  f.uses.push_back({Word{.text = path, .raw = w.raw}, Access::kRead, true});
  // The directories above: for deny and ask rules only (nothing there must be allowed).
  std::string up = "../";
  for (int k = 1; !relative && k < 8; ++k, up += "../") f.uses.push_back({Word{.text = up + path, .raw = w.raw}, std::nullopt, true});
}

}  // namespace

PathsFound SedPaths(const std::vector<Word>& argv) {
  PathsFound f;
  auto a = ParseOptions(kSed, argv);
  if (!a.uncertain.empty()) return Uncertain(f, "sed: " + a.uncertain), f;
  if (a.Has("-f") || a.Has("--file")) Uncertain(f, "sed -f: a program we cannot see");
  auto programs = a.Values("-e");
  for (const auto& w : a.Values("--expression")) programs.push_back(w);
  auto files = a.operands;
  if (programs.empty() && !a.Has("-f") && !a.Has("--file") && !files.empty()) {
    programs.push_back(files.front());
    files.erase(files.begin());
  }
  for (const auto& p : programs) {
    if (p.dynamic) Uncertain(f, "a sed program known only at run time: " + p.raw);
    else SedProgram(p.text, f).Read();
  }
  for (const auto& w : a.Values("-f")) f.uses.push_back({w, Access::kRead, false});
  for (const auto& w : a.Values("--file")) f.uses.push_back({w, Access::kRead, false});
  bool in_place = a.Has("-i") || a.Has("--in-place");
  for (const auto& w : files) f.uses.push_back({w, in_place ? std::nullopt : std::optional(Access::kRead), false});
  return f;
}

PathsFound AwkPaths(const std::vector<Word>& argv) {
  PathsFound f;
  bool from_file = false;
  size_t i = 1;
  for (; i < argv.size(); ++i) {
    const auto& w = argv[i];
    if (w.dynamic && (w.text.empty() || w.text[0] == '-' || w.raw.empty() || w.raw[0] == '$')) return Uncertain(f, "awk: an option known only at run time: " + w.raw), f;
    if (w.text == "--") { ++i; break; }
    if (w.text.size() < 2 || w.text[0] != '-') break;
    char c = w.text[1];
    if (!In(std::string_view(&c, 1), {"F", "v", "f"}) || w.text.rfind("--", 0) == 0)
      return Uncertain(f, "awk: an option we do not model: " + w.raw), f;
    Word value = w.text.size() > 2 ? Word{.text = w.text.substr(2), .dynamic = w.dynamic, .raw = w.raw}
                                   : i + 1 < argv.size() ? argv[++i] : Word{};
    if (c == 'f') {
      from_file = true;
      f.uses.push_back({value, Access::kRead, false});
    }
  }
  if (from_file) Uncertain(f, "awk -f: a program we cannot see");
  else if (i >= argv.size()) return f;
  else if (argv[i].dynamic) Uncertain(f, "an awk program known only at run time: " + argv[i].raw);
  else if (auto why = AwkUnsafe(argv[i].text); !why.empty()) Uncertain(f, "an awk program that may open or run what it names: " + why);
  for (size_t k = from_file ? i : i + 1; k < argv.size(); ++k) f.uses.push_back({argv[k], Access::kRead, false});
  return f;
}

void AddGitObjectReads(const std::vector<Word>& argv, PathsFound& f) {
  size_t sub = 1;
  while (sub < argv.size() && !argv[sub].text.empty() && argv[sub].text[0] == '-')
    sub += In(argv[sub].text, {"-C", "-c", "--git-dir", "--work-tree", "--namespace"}) ? 2 : 1;
  if (sub >= argv.size()) return;
  const std::string& cmd = argv[sub].text;
  bool pathspec = false, patch = false, summary = false;
  int revisions = 0, objects = 0;  // operands without and with a `:PATH`
  for (size_t i = sub + 1; i < argv.size(); ++i) {
    const auto& t = argv[i].text;
    if (t == "--") { pathspec = true; break; }
    if (!t.empty() && t[0] != '-') ++(t.find(':') != std::string::npos ? objects : revisions);
    if (In(cmd, {"show", "diff", "log", "whatchanged", "cat-file", "grep", "archive", "blame", "difftool", "range-diff",
                 "format-patch", "stash", "annotate"}))
      ObjectPath(argv[i], f);
    patch |= In(t, {"-p", "-u", "--patch", "--cc", "-m", "--full-diff", "--binary", "--raw"}) || t.rfind("-U", 0) == 0 ||
             t.rfind("--unified", 0) == 0 || t.rfind("--word-diff", 0) == 0 || t.rfind("--color-words", 0) == 0;
    summary |= In(t, {"--stat", "--name-only", "--name-status", "--numstat", "--shortstat", "--no-patch", "-s", "--quiet",
                      "--summary"}) || t.rfind("--stat=", 0) == 0;
  }
  // Whole commits or trees, every tracked file in them: as a read of the directory, whole
  // (`git show REV:PATH` alone shows that file only).
  bool whole = In(cmd, {"show", "diff", "format-patch", "archive", "bundle", "range-diff", "difftool", "cat-file"})
                   ? (patch || !summary) && (objects == 0 || revisions > 0)
                   : In(cmd, {"log", "whatchanged", "stash", "reflog"}) && patch;
  if (whole && !pathspec) f.uses.push_back({Word{.text = ".", .raw = "."}, Access::kRead, true});
}

}  // namespace sandshim::policy
