#include <string>
#include <string_view>

#include "shim/policy/shell_parse.h"

namespace sandshim::policy {
namespace {

// Where a word ends, so that a `#` after it starts a comment.
bool IsWordEnd(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>';
}

}  // namespace

// Every shell deletes backslash-newline before it tokenizes, outside single quotes (dash's
// pgetc_eatbnl): `$\⏎(x)` is `$(x)`, `<\⏎>` is `<>`. Done once here, not at each place that
// looks ahead. Where the quoting cannot be followed for certain (a here-document, whose quoted
// body keeps them; bash's $'...'), the script is asked about.
std::string JoinContinuations(std::string_view s, ParsedScript& out) {
  if (s.find("\\\n") == std::string_view::npos) return std::string(s);
  if (s.find("<<") != std::string_view::npos || s.find("$'") != std::string_view::npos)
    out.uncertain.push_back("backslash-newline with a here-document or $'...'");
  std::string r;
  bool squote = false, dquote = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (squote) { squote = c != '\''; r += c; continue; }
    if (c == '\\' && i + 1 < s.size() && s[i + 1] == '\n') { ++i; continue; }
    if (c == '\\' && i + 1 < s.size()) { r += c; r += s[++i]; continue; }
    if (c == '"') dquote = !dquote;
    else if (c == '\'' && !dquote) squote = true;
    else if (c == '#' && !dquote && (r.empty() || IsWordEnd(r.back()))) {  // a comment: kept as is
      for (; i < s.size() && s[i] != '\n'; ++i) r += s[i];
      if (i < s.size()) r += s[i];
      continue;
    }
    r += c;
  }
  return r;
}

}  // namespace sandshim::policy
