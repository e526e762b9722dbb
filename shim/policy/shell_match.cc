#include "shim/policy/shell_match.h"

#include <algorithm>

#include "shim/policy/paths.h"

namespace sandshim::policy {
namespace {

bool IsShortCluster(const std::string& w) { return w.size() > 1 && w[0] == '-' && w[1] != '-'; }

// Other spellings of an option letter, so that `rm -R --force /` is `rm -rf /` to a deny
// rule. GNU getopt_long takes any unambiguous prefix of a long option (--rec, --forc).
struct OptionSpelling {
  std::string_view command, long_name;
  char letter;
};
constexpr OptionSpelling kSpellings[] = {
    {"rm", "recursive", 'r'}, {"rm", "force", 'f'}, {"rm", "dir", 'd'},       {"cp", "recursive", 'r'},
    {"cp", "force", 'f'},     {"chmod", "recursive", 'R'}, {"chown", "recursive", 'R'}, {"chgrp", "recursive", 'R'},
    {"git", "force", 'f'},
};

char CanonicalLetter(std::string_view command, char c) {
  return (command == "rm" || command == "cp") && c == 'R' ? 'r' : c;
}

// Whether option word w (of command) sets the option letter.
bool SetsLetter(std::string_view command, const std::string& w, char letter) {
  if (IsShortCluster(w)) {
    for (char c : w.substr(1))
      if (CanonicalLetter(command, c) == letter) return true;
    return false;
  }
  // Any prefix, however short: getopt_long takes `rm --r --f` (an ambiguous one fails the tool,
  // so taking it as the option only ever refuses more).
  if (w.size() < 3 || w.rfind("--", 0) != 0) return false;
  auto name = std::string_view(w).substr(2, w.find('=') == std::string::npos ? std::string::npos : w.find('=') - 2);
  for (const auto& s : kSpellings)
    if (s.command == command && s.letter == letter && s.long_name.rfind(name, 0) == 0) return true;
  return false;
}

// `--for`, `--force`, `--force=x` all spell the rule's `--force` (any prefix, as above).
bool IsLongPrefix(const std::string& w, const std::string& rule_word) {
  if (w.size() < 3 || w.rfind("--", 0) != 0) return false;
  auto name = w.substr(0, w.find('='));
  return rule_word.rfind(name, 0) == 0;
}

// An operand as the rule would name it: "//" and "/." are "/".
std::string Canon(const std::string& w) { return !w.empty() && w[0] == '/' ? NormalizePath(w) : w; }

// A path through a /proc magic link (/proc/self/root, /proc/1/cwd/.., /proc/self/fd/3,
// /dev/fd/3) may be any path, the rule's too: `rm -rf /proc/1/root/` is `rm -rf /` for a
// program that does not check (busybox rm has no --preserve-root). polred r4 R9.
// Read on the word as written: `..` after a magic link is the link target's parent, which a
// lexical resolution (`/proc/self/cwd/..` -> `/proc/self`) would hide.
bool ThroughMagicLink(const std::string& w) {
  if (w.empty() || w[0] != '/') return false;
  size_t start = 0;  // past leading "/", "//", "/./"
  while (start < w.size() && (w[start] == '/' || (w[start] == '.' && (start + 1 == w.size() || w[start + 1] == '/')))) ++start;
  std::string_view rest = std::string_view(w).substr(start);
  if (rest.rfind("dev/fd", 0) == 0) return true;
  if (rest.rfind("proc/", 0) != 0) return false;
  for (std::string_view link : {"/root", "/cwd", "/fd"})
    for (size_t at = w.find(link); at != std::string::npos; at = w.find(link, at + 1))
      if (at + link.size() == w.size() || w[at + link.size()] == '/') return true;
  return false;
}

Match Covered(const std::string& rule_word, const std::vector<Word>& argv) {
  bool maybe = false;
  bool options = true;
  const std::string& command = argv[0].text;
  if (IsShortCluster(rule_word)) {
    // Every letter among the command's options (-rf, -r -f, -fr, -R --force).
    for (char rule_letter : rule_word.substr(1)) {
      char letter = CanonicalLetter(command, rule_letter);
      bool found = false;
      for (size_t i = 1; i < argv.size() && !found; ++i) {
        if (argv[i].dynamic) { maybe = true; continue; }
        if (argv[i].text == "--") break;
        found = SetsLetter(command, argv[i].text, letter);
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
    if (rule_word.rfind("--", 0) == 0 ? options && IsLongPrefix(w.text, rule_word) : Canon(w.text) == Canon(rule_word))
      return Match::kYes;
    if (!rule_word.empty() && rule_word[0] == '/' && ThroughMagicLink(w.text)) maybe = true;
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
