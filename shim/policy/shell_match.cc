#include "shim/policy/shell_match.h"

#include <algorithm>

#include "shim/policy/paths.h"

namespace sandshim::policy {
namespace {

bool IsShortCluster(const std::string& w) { return w.size() > 1 && w[0] == '-' && w[1] != '-'; }

// An operand as the rule would name it: "//" and "/." are "/".
std::string Canon(const std::string& w) { return !w.empty() && w[0] == '/' ? NormalizePath(w) : w; }

Match Covered(const std::string& rule_word, const std::vector<Word>& argv) {
  bool maybe = false;
  bool options = true;
  if (IsShortCluster(rule_word)) {
    // Every letter among the command's short options (-rf, -r -f, -fr).
    for (char letter : rule_word.substr(1)) {
      bool found = false;
      for (size_t i = 1; i < argv.size() && !found; ++i) {
        if (argv[i].dynamic) { maybe = true; continue; }
        if (argv[i].text == "--") break;
        found = IsShortCluster(argv[i].text) && argv[i].text.find(letter) != std::string::npos;
      }
      if (!found && !maybe) return Match::kNo;
      if (!found) return Match::kMaybe;
    }
    return Match::kYes;
  }
  for (size_t i = 1; i < argv.size(); ++i) {
    const auto& w = argv[i];
    if (w.dynamic) { maybe = true; continue; }
    if (options && w.text == "--") { options = false; continue; }
    if (rule_word.rfind("--", 0) == 0 ? (w.text == rule_word || w.text.rfind(rule_word + "=", 0) == 0)
                                      : Canon(w.text) == Canon(rule_word))
      return Match::kYes;
  }
  return maybe ? Match::kMaybe : Match::kNo;
}

}  // namespace

Match MatchAllow(const ShellRule& r, const std::vector<Word>& argv) {
  if (argv.size() < r.words.size() || (!r.prefix && argv.size() != r.words.size())) return Match::kNo;
  for (size_t i = 0; i < r.words.size(); ++i)
    if (argv[i].dynamic || argv[i].text != r.words[i]) return Match::kNo;
  return Match::kYes;
}

Match MatchRefusal(const ShellRule& r, const std::vector<Word>& argv) {
  if (argv.empty() || argv[0].text != r.words[0]) return Match::kNo;
  Match m = Match::kYes;
  for (size_t i = 1; i < r.words.size(); ++i) {
    auto c = Covered(r.words[i], argv);
    if (c == Match::kNo) return Match::kNo;
    if (c == Match::kMaybe) m = Match::kMaybe;
  }
  return m;
}

}  // namespace sandshim::policy
