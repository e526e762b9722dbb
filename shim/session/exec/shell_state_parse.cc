// ParseShellReport: the persistent shell's state as the wrapper writes it to fd 3, read as
// data. Only the shapes `export -p` prints are accepted; the first thing that is not one
// makes the whole report an error (the state is then left as it was).
#include "shim/session/exec/shell_state.h"

namespace sandshim::session {
namespace {

class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}
  bool Done() const { return i_ >= s_.size(); }
  bool Take(std::string_view lit) {
    if (s_.substr(i_, lit.size()) != lit) return false;
    i_ += lit.size();
    return true;
  }
  bool Name(std::string& out) {
    size_t start = i_;
    while (i_ < s_.size() && (Alpha(s_[i_]) || (i_ > start && s_[i_] >= '0' && s_[i_] <= '9'))) ++i_;
    out = std::string(s_.substr(start, i_ - start));
    return !out.empty();
  }
  // One or more quoted pieces, as a shell would join them: '...' literally; "..." with \ before
  // $ ` " \ taken away (and \ newline, a continuation, dropped).
  bool Word(std::string& out) {
    size_t pieces = 0;
    for (;; ++pieces) {
      if (Take("'")) {
        auto end = s_.find('\'', i_);
        if (end == std::string_view::npos) return false;
        out.append(s_.substr(i_, end - i_));
        i_ = end + 1;
      } else if (Take("\"")) {
        if (!DoubleQuoted(out)) return false;
      } else {
        return pieces > 0;
      }
    }
  }
  std::string_view Rest() const { return s_.substr(i_); }

 private:
  static bool Alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
  bool DoubleQuoted(std::string& out) {
    while (i_ < s_.size()) {
      char c = s_[i_++];
      if (c == '"') return true;
      if (c == '$' || c == '`') return false;  // an expansion: export -p never prints one
      if (c != '\\' || i_ >= s_.size()) {
        out += c;
        continue;
      }
      char n = s_[i_];
      if (n == '$' || n == '`' || n == '"' || n == '\\') out += n, ++i_;
      else if (n == '\n') ++i_;
      else out += c;
    }
    return false;
  }
  std::string_view s_;
  size_t i_ = 0;
};

Error Bad(const std::string& what) { return MakeError("shell state report: " + what, EINVAL); }

}  // namespace

Result<ShellState> ParseShellReport(std::string_view report) {
  Reader r(report);
  ShellState s;
  while (r.Take("export ")) {
    std::string name, value;
    if (!r.Name(name)) return Bad("a name expected after export");
    if (r.Take("\n")) continue;  // exported but unset: nothing for the environment
    if (!r.Take("=") || !r.Word(value) || !r.Take("\n")) return Bad("the value of " + name + " is not quoted as export -p quotes");
    s.env.emplace_back(std::move(name), std::move(value));
  }
  if (!r.Take("cwd ")) return Bad("neither export nor cwd");
  auto rest = r.Rest();
  if (rest.size() < 2 || rest.back() != '\n') return Bad("the directory is not one line at the end");
  s.cwd = std::string(rest.substr(0, rest.size() - 1));
  return s;
}

}  // namespace sandshim::session
