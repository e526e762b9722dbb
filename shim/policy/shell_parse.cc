#include "shim/policy/shell_parse.h"

#include <algorithm>
#include <array>
#include <optional>

namespace sandshim::policy {
namespace {

constexpr int kMaxDepth = 16;  // nested $( ) deeper than this is not worth judging

bool IsBlank(char c) { return c == ' ' || c == '\t'; }
bool IsMeta(char c) { return IsBlank(c) || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>'; }
bool IsNameChar(char c, bool first) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9');
}

// Words that shape control flow: a command starting with one goes on with the next word.
bool IsPrefixKeyword(std::string_view w) {
  // (bash's `time` keyword is judged as the time command, whose grammar covers its -p.)
  static constexpr std::array<std::string_view, 12> k = {"!", "{", "}", "if", "then", "elif", "else", "fi",
                                                          "do", "done", "while", "until"};
  return std::find(k.begin(), k.end(), w) != k.end();
}

struct HereDoc {
  std::string delimiter;
  bool expands = true, strip_tabs = false;
};

class Parser {
 public:
  Parser(std::string_view s, ParsedScript& out, int depth, const Parser* parent = nullptr)
      : s_(s), out_(out), depth_(depth), parent_(parent) {}

  // Parses commands up to the end, or (nested) up to the ')' that closes a $( ).
  // Returns the position after that ')'.
  size_t ParseList(size_t start, bool nested) {
    i_ = start;
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (IsBlank(c)) { ++i_; continue; }
      if (c == '#') { SkipComment(); continue; }  // only ever seen where a word would start
      if (c == '\\' && i_ + 1 < s_.size() && s_[i_ + 1] == '\n') { i_ += 2; continue; }
      if (c == '\n') {
        for (const Parser* p = parent_; p; p = p->parent_)
          if (!p->pending_.empty()) Uncertain("a here-document whose body starts inside $( )");
        EndCommand(); Connect(Link::kOther); ++i_; ReadHereDocs(); continue;
      }
      if (c == ';' || c == '&' || c == '|') {
        EndCommand();
        bool twice = c != ';' && i_ + 1 < s_.size() && s_[i_ + 1] == c;
        Connect(c == '&' && twice ? Link::kAnd : c == '|' && !twice ? Link::kPipe : Link::kOther);
        i_ += twice ? 2 : 1;
        continue;
      }
      if (c == '(') { OpenParen(); continue; }
      if (c == ')') {
        EndCommand();
        ended_ = Ended::kMayChangeDir;  // a ( ) group: what it did to its directory stays inside
        ++i_;
        if (subshells_ > 0) { --subshells_; continue; }
        if (nested) return i_;
        Uncertain("unbalanced ')'");
        continue;
      }
      if (c == '<' || c == '>') { ReadRedirect(); continue; }
      AddWord(ReadWord());
    }
    EndCommand();
    if (nested) Uncertain("unterminated $(");
    if (subshells_ > 0) Uncertain("unterminated (");
    if (!pending_.empty()) Uncertain("unterminated here-document");
    return i_;
  }

 private:
  void Uncertain(std::string why) {
    if (std::find(out_.uncertain.begin(), out_.uncertain.end(), why) == out_.uncertain.end())
      out_.uncertain.push_back(std::move(why));
  }
  bool AtCommandStart() const { return cur_.argv.empty() && cur_.assignments.empty(); }

  void SkipComment() {
    while (i_ < s_.size() && s_[i_] != '\n') ++i_;
  }

  void OpenParen() {
    ++i_;
    if (i_ < s_.size() && s_[i_] == ')' && !cur_.argv.empty()) {
      Uncertain("function definition");
      ++i_;
      cur_ = {};
      return;
    }
    if (!cur_.argv.empty()) Uncertain("'(' inside a command");
    if (AtCommandStart() && i_ < s_.size() && s_[i_] == '(') Uncertain("(( )) arithmetic (bash)");
    EndCommand();
    ++subshells_;
  }

  // A finished simple command is kept; the keyword state resets at every separator.
  void EndCommand() {
    if (!cur_.argv.empty() || !cur_.assignments.empty() || !cur_.redirects.empty()) {
      cur_.started_in = guard_;
      ended_ = after_pipe_ ? Ended::kOther : negated_ ? Ended::kMayChangeDir : Classify(cur_);
      out_.commands.push_back(std::move(cur_));
    }
    cur_ = {};
    if (for_ == For::kWords || for_ == For::kAfterName) for_ = For::kExpectDo;
    negated_ = false;
  }

  // What the command just ended does to the shell's directory, for `cd /x && cmd`.
  enum class Ended { kOther, kCdAbsolute, kMayChangeDir };
  Ended Classify(const SimpleCommand& c) {
    if (c.argv.empty()) return Ended::kOther;
    const auto& name = c.argv[0];
    if (name.dynamic) return Ended::kMayChangeDir;
    if (name.text == "cd" && c.argv.size() == 2 && !c.argv[1].dynamic && !c.argv[1].text.empty() &&
        c.argv[1].text.front() == '/') {
      cd_target_ = c.argv[1].text;
      return Ended::kCdAbsolute;
    }
    static constexpr std::array<std::string_view, 11> kDirChangers = {
        "cd", "pushd", "popd", "eval", "source", ".", "command", "builtin", "exec", "alias", "unalias"};
    return std::find(kDirChangers.begin(), kDirChangers.end(), name.text) != kDirChangers.end() ? Ended::kMayChangeDir
                                                                                               : Ended::kOther;
  }

  // After `A && B`, B runs only if A succeeded: after `cd /x &&` it runs in /x. A pipeline's
  // members run where its first did (a cd inside one is a subshell's); any other link ends
  // what is known.
  enum class Link { kAnd, kPipe, kOther };
  void Connect(Link link) {
    if (link == Link::kAnd) {
      if (ended_ == Ended::kCdAbsolute) guard_ = cd_target_;
      else if (ended_ == Ended::kMayChangeDir) guard_.reset();
    } else if (link == Link::kOther) {
      guard_.reset();
    }
    after_pipe_ = link == Link::kPipe;
    ended_ = Ended::kOther;
  }

  // `for NAME [in WORDS] ; do`: the name and the words are data; after the name comes
  // `in`, `do` (for NAME do ...: valid sh, no list) or a separator, and then `do`.
  enum class For { kNone, kName, kAfterName, kWords, kExpectDo };
  bool ForHeader(const Word& w) {
    switch (for_) {
      case For::kNone: return false;
      case For::kName:
        if (w.dynamic || w.quoted || !IsName(w.text)) Uncertain("for loop without a name");
        // The loop sets NAME to each word: judged as the assignment it is (`for PATH in ...`).
        out_.commands.push_back(SimpleCommand{.assignments = {Word{.text = w.text + "=", .dynamic = true, .expanded = true, .raw = w.raw + "=<for>"}}});
        for_ = For::kAfterName;
        return true;
      case For::kAfterName:
        if (!w.quoted && w.text == "in") { for_ = For::kWords; return true; }
        if (!w.quoted && w.text == "do") { for_ = For::kNone; return true; }
        Uncertain("for loop we do not model");
        for_ = For::kNone;
        return true;
      case For::kWords: return true;
      case For::kExpectDo:
        for_ = For::kNone;
        if (!w.quoted && w.text == "do") return true;
        Uncertain("for loop without do");
        return false;
    }
    return false;
  }
  static bool IsName(const std::string& t) {
    if (t.empty() || !IsNameChar(t[0], true)) return false;
    return std::all_of(t.begin(), t.end(), [](char c) { return IsNameChar(c, false); });
  }

  void AddWord(Word w) {
    if (ForHeader(w)) return;
    if (AtCommandStart() && !w.quoted && !w.dynamic) {
      if (w.text == "!") negated_ = true;  // `! cd /x && y`: y runs when the cd failed
      if (IsPrefixKeyword(w.text)) return;
      if (w.text == "for" || w.text == "select") { for_ = For::kName; return; }
      if (w.text == "[[" || w.text == "coproc") Uncertain(w.text + " (bash) we do not model");
      if (w.text == "case") Uncertain("case statement");
      if (w.text == "function") Uncertain("function definition");
    }
    if (cur_.argv.empty() && IsAssignment(w)) {
      cur_.assignments.push_back(std::move(w));
      return;
    }
    if (w.text.find('{') != std::string::npos && !w.quoted && w.text != "{" && w.text != "}") {
      w.dynamic = w.expanded = true;  // bash brace expansion: /bin/{rm,ls}
    }
    cur_.argv.push_back(std::move(w));
  }

  static bool IsAssignment(const Word& w) {
    auto eq = w.raw.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    for (size_t k = 0; k < eq; ++k)
      if (!IsNameChar(w.raw[k], k == 0)) return false;
    return true;
  }

  void ReadRedirect() {
    // An all-digit word just before is the fd number, not an argument.
    if (!cur_.argv.empty() && !cur_.argv.back().quoted && last_word_end_ == i_ &&
        std::all_of(cur_.argv.back().raw.begin(), cur_.argv.back().raw.end(), [](char c) { return c >= '0' && c <= '9'; }))
      cur_.argv.pop_back();
    char c = s_[i_++];
    RedirectKind kind = c == '<' ? RedirectKind::kRead : RedirectKind::kWrite;
    bool heredoc = false, strip = false;
    if (c == '<' && Peek('<')) {
      ++i_;
      if (Peek('<')) { ++i_; kind = RedirectKind::kHereString; }
      else { heredoc = true; kind = RedirectKind::kHereDoc; if (Peek('-')) { ++i_; strip = true; } }
    } else if (c == '<' && Peek('>')) { ++i_; kind = RedirectKind::kReadWrite; }
    else if (c == '>' && (Peek('>') || Peek('|'))) ++i_;
    else if (Peek('&')) { ++i_; kind = RedirectKind::kDup; }
    else if (Peek('(')) {  // bash process substitution <( ) >( )
      Uncertain("process substitution");
      ++i_;
      ++subshells_;
      EndCommand();
      return;
    }
    while (i_ < s_.size() && IsBlank(s_[i_])) ++i_;
    if (i_ >= s_.size() || IsMeta(s_[i_])) { Uncertain("redirection without a target"); return; }
    Word target = ReadWord();
    if (kind == RedirectKind::kDup && !target.dynamic &&
        (target.text == "-" || std::all_of(target.text.begin(), target.text.end(), [](char d) { return d >= '0' && d <= '9'; })))
      ;  // 2>&1: no file
    else if (kind == RedirectKind::kDup)
      kind = RedirectKind::kWrite;  // bash's >&file
    if (heredoc) {
      // bash also ends a body inside $( ) at a line `DELIM)` (it closes the $( ) there).
      if (depth_ > 0) Uncertain("a here-document inside $( )");
      // sh ends the body at a line equal to the delimiter after quote removal, unexpanded;
      // a delimiter with $, `, or a backslash inside is read differently by each shell.
      if (target.raw.find_first_of("$`\n") != std::string::npos || target.raw.find('\\', 1) != std::string::npos || target.text.empty())
        Uncertain("here-document delimiter we do not model: " + target.raw);
      pending_.push_back({target.text, !target.quoted, strip});
    }
    cur_.redirects.push_back({kind, std::move(target)});
  }

  bool Peek(char c) const { return i_ < s_.size() && s_[i_] == c; }

  void ReadHereDocs() {
    for (const auto& h : pending_) {
      bool found = false;
      while (i_ < s_.size()) {
        size_t eol = s_.find('\n', i_);
        if (eol == std::string_view::npos) eol = s_.size();
        std::string_view line = s_.substr(i_, eol - i_);
        i_ = std::min(eol + 1, s_.size());
        if (h.strip_tabs) while (!line.empty() && line.front() == '\t') line.remove_prefix(1);
        if (line == h.delimiter) { found = true; break; }
        // An unquoted delimiter joins a line ending in a backslash with the next.
        if (h.expands && !line.empty() && line.back() == '\\') Uncertain("backslash-newline in a here-document");
        // An unquoted delimiter: the body is expanded, so a substitution in it runs.
        if (h.expands && (line.find("$(") != std::string_view::npos || line.find('`') != std::string_view::npos))
          Uncertain("command substitution in a here-document");
      }
      if (!found) Uncertain("unterminated here-document");
    }
    pending_.clear();
  }

  Word ReadWord() {
    Word w;
    size_t start = i_;
    bool first = true;
    // bash expands ~ after the first `=` of NAME=... (and after each `:` there), in any word.
    bool name_so_far = true, assign_like = false;
    while (i_ < s_.size() && !IsMeta(s_[i_])) {
      char c = s_[i_];
      if (c == '\\') {
        w.quoted = true;
        if (i_ + 1 < s_.size() && s_[i_ + 1] == '\n') { i_ += 2; continue; }
        if (i_ + 1 < s_.size()) w.text += s_[i_ + 1];
        i_ += 2;
      } else if (c == '\'') {
        w.quoted = true;
        size_t end = s_.find('\'', i_ + 1);
        if (end == std::string_view::npos) { Uncertain("unterminated quote"); end = s_.size(); }
        w.text += s_.substr(i_ + 1, end - i_ - 1);
        i_ = std::min(end + 1, s_.size());
      } else if (c == '"') {
        w.quoted = true;
        ReadDoubleQuoted(w);
      } else if (c == '$') {
        ReadDollar(w);
      } else if (c == '`') {
        Backtick(w);
      } else {
        if (c == '*' || c == '?' || c == '[') w.dynamic = true;  // a glob
        if (c == '~' && (first || (assign_like && (s_[i_ - 1] == '=' || s_[i_ - 1] == ':')))) w.dynamic = w.expanded = true;  // $HOME
        if (c == '=' && name_so_far && !first && !assign_like) assign_like = true;
        name_so_far = name_so_far && !assign_like && IsNameChar(c, first);
        w.text += c;
        ++i_;
        first = false;
        continue;
      }
      name_so_far = false;
      first = false;
    }
    last_word_end_ = i_;
    w.raw = std::string(s_.substr(start, i_ - start));
    if (w.raw == "[") w.dynamic = false;  // test's name, not a bracket expression
    return w;
  }

  void ReadDoubleQuoted(Word& w) {
    bool outer = in_dquote_;
    in_dquote_ = true;
    ++i_;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_];
      if (c == '\\' && i_ + 1 < s_.size() && std::string_view("$`\"\\\n").find(s_[i_ + 1]) != std::string_view::npos) {
        if (s_[i_ + 1] != '\n') w.text += s_[i_ + 1];
        i_ += 2;
      } else if (c == '$') {
        ReadDollar(w);
      } else if (c == '`') {
        Backtick(w);
      } else {
        w.text += c;
        ++i_;
      }
    }
    in_dquote_ = outer;
    if (i_ >= s_.size()) Uncertain("unterminated quote");
    else ++i_;
  }

  void Backtick(Word& w) {
    Uncertain("backtick command substitution");
    w.dynamic = w.expanded = true;
    size_t end = s_.find('`', i_ + 1);
    i_ = end == std::string_view::npos ? s_.size() : end + 1;
  }

  // $name, ${...}, $((...)), $(...): all dynamic; a $( ) is parsed as commands of its own.
  void ReadDollar(Word& w) {
    size_t n = i_ + 1;
    if (n >= s_.size()) { w.text += '$'; ++i_; return; }
    char c = s_[n];
    if (c == '(' && n + 1 < s_.size() && s_[n + 1] == '(') {
      w.dynamic = w.expanded = true;
      if (auto end = Arithmetic(n + 2)) { i_ = *end; return; }
      // Not arithmetic we can read: bash may take it for $( (cmd) ); judge it as that, and ask.
      Uncertain("$(( )) that is not plain arithmetic");
    }
    if (c == '[') return Unmodeled("$[ ] arithmetic (bash)");
    if (c == '(') {
      w.dynamic = w.expanded = true;
      if (depth_ >= kMaxDepth) { Uncertain("command substitution nested too deep"); i_ = s_.size(); return; }
      Parser inner(s_, out_, depth_ + 1, this);
      i_ = inner.ParseList(n + 1, /*nested=*/true);
      return;
    }
    if (c == '{') {
      w.dynamic = w.expanded = true;
      ReadBraced(n + 1);
      return;
    }
    if (c == '"') {  // bash $"...": translated at run time (and `$` then `"` inside quotes)
      w.dynamic = w.expanded = true;
      Uncertain("$\"...\" quoting (bash)");
      if (in_dquote_) { ++i_; return; }  // the `"` closes the quotes
      i_ = n;
      w.quoted = true;
      return ReadDoubleQuoted(w);
    }
    if (c == '\'') {  // bash $'...': escapes decoded at run time
      w.dynamic = w.expanded = true;
      Uncertain("$'...' quoting");
      size_t end = s_.find('\'', n + 1);
      i_ = end == std::string_view::npos ? s_.size() : end + 1;
      return;
    }
    if (IsNameChar(c, true)) {
      w.dynamic = w.expanded = true;
      i_ = n;
      while (i_ < s_.size() && IsNameChar(s_[i_], false)) ++i_;
      return;
    }
    if ((c >= '0' && c <= '9') || std::string_view("@*#?$!-").find(c) != std::string_view::npos) {
      w.dynamic = w.expanded = true;
      i_ = n + 1;
      return;
    }
    w.text += '$';
    ++i_;
  }

  // ${NAME}, ${#NAME}, ${NAME OP WORD} with POSIX's operators (:- - := = :? ? :+ + # ## % %%).
  // WORD is read as sh reads it (quotes, escapes, nested expansions, whose commands are
  // judged). Inside double quotes the shells disagree on what quotes and backslashes in WORD
  // do (#33): that, and bash's other forms (${x/a/b}, ${x:1}, ${x@P}, ${!x}), ask.
  void ReadBraced(size_t k) {
    if (k < s_.size() && s_[k] == '#' && k + 1 < s_.size() && s_[k + 1] != '}' && std::string_view(":-=?+%#").find(s_[k + 1]) == std::string_view::npos) ++k;
    size_t name = k;
    if (k < s_.size() && IsNameChar(s_[k], true)) { while (k < s_.size() && IsNameChar(s_[k], false)) ++k; }
    else if (k < s_.size() && s_[k] >= '0' && s_[k] <= '9') { while (k < s_.size() && s_[k] >= '0' && s_[k] <= '9') ++k; }
    else if (k < s_.size() && std::string_view("@*#?$!-").find(s_[k]) != std::string_view::npos) ++k;
    if (k == name) return Unmodeled("parameter expansion we do not model");
    if (k < s_.size() && s_[k] == '}') { i_ = k + 1; return; }
    if (k < s_.size() && s_[k] == ':') ++k;
    if (k >= s_.size() || std::string_view("-=?+#%").find(s_[k]) == std::string_view::npos || (s_[k - 1] == ':' && (s_[k] == '#' || s_[k] == '%')))
      return Unmodeled("parameter expansion we do not model (bash)");
    if ((s_[k] == '#' || s_[k] == '%') && k + 1 < s_.size() && s_[k + 1] == s_[k]) ++k;
    i_ = k + 1;
    Word scratch;
    while (i_ < s_.size() && s_[i_] != '}') {
      char c = s_[i_];
      if (in_dquote_ && (c == '\\' || c == '\'' || c == '"')) return Unmodeled("a quote inside a quoted ${...}");
      if (c == '\\') i_ += 2;
      else if (c == '\'') {
        size_t end = s_.find('\'', i_ + 1);
        i_ = end == std::string_view::npos ? s_.size() : end + 1;
      } else if (c == '"') ReadDoubleQuoted(scratch);
      else if (c == '$') ReadDollar(scratch);
      else if (c == '`') Backtick(scratch);
      else ++i_;
    }
    if (i_ >= s_.size()) return Unmodeled("unterminated ${");
    ++i_;
  }

  // $(( digits and operators )): the position after it. Anything else (a name, which bash
  // evaluates recursively, with its subscripts' $( ); a $; a ')' that does not close it):
  // nullopt.
  std::optional<size_t> Arithmetic(size_t k) {
    int depth = 0;
    for (; k < s_.size(); ++k) {
      char c = s_[k];
      if (c == '(') ++depth;
      else if (c == ')' && depth > 0) --depth;
      else if (c == ')') return k + 1 < s_.size() && s_[k + 1] == ')' ? std::optional(k + 2) : std::nullopt;
      else if (!(c >= '0' && c <= '9') && std::string_view(" \t+-*/%<>=!&|^~?:,").find(c) == std::string_view::npos) return std::nullopt;
    }
    return std::nullopt;
  }

  // Whatever follows cannot be read with certainty: the script is asked about.
  void Unmodeled(std::string why) {
    Uncertain(std::move(why));
    i_ = s_.size();
  }

  // Skips to after the `depth`-th closing bracket; a substitution inside is not judged.
  size_t SkipBalanced(size_t k, char open, char close, int depth) {
    size_t begin = k;
    for (; k < s_.size() && depth > 0; ++k) {
      if (s_[k] == open) ++depth;
      else if (s_[k] == close) --depth;
    }
    auto inside = s_.substr(begin, k - begin);
    if (inside.find("$(") != std::string_view::npos || inside.find('`') != std::string_view::npos)
      Uncertain("command substitution inside an expansion");
    if (depth > 0) Uncertain("unterminated expansion");
    return k;
  }

  std::string_view s_;
  ParsedScript& out_;
  int depth_;
  const Parser* parent_;
  size_t i_ = 0, last_word_end_ = std::string_view::npos;
  int subshells_ = 0;
  For for_ = For::kNone;
  bool after_pipe_ = false, negated_ = false, in_dquote_ = false;
  Ended ended_ = Ended::kOther;
  std::string cd_target_;
  std::optional<std::string> guard_;  // the directory the next command surely starts in
  SimpleCommand cur_;
  std::vector<HereDoc> pending_;
};

}  // namespace

ParsedScript ParseShell(std::string_view script) {
  ParsedScript out;
  std::string joined = JoinContinuations(script, out);
  Parser(joined, out, 0).ParseList(0, /*nested=*/false);
  return out;
}

std::string JoinWords(const std::vector<Word>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : " ") + (w.raw.empty() ? w.text : w.raw);
  return s;
}

}  // namespace sandshim::policy
