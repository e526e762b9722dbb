// A conservative POSIX sh parser for the command policy: from a command string to the
// simple commands it would run (pipelines, lists, subshells, brace groups, $(...) and the
// bodies of if/while/for all flattened into one list). It never runs or expands anything:
// a word whose value depends on run time (a variable, a glob, a command substitution) is
// marked dynamic, and whatever the parser cannot resolve with certainty (backticks, case,
// functions, process substitution, an expanding here-doc with a substitution, a syntax
// error) is recorded as a reason for uncertainty, which the policy turns into "ask".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sandshim::policy {

struct Word {
  std::string text;      // the literal characters (quotes removed); expansions add nothing
  bool dynamic = false;  // its value is known only at run time
  bool expanded = false; // dynamic through $, `, ~ or braces (not only a glob: a glob's directory is known)
  bool quoted = false;   // some part was quoted or escaped (so never a keyword)
  std::string raw;       // as written in the script
};

enum class RedirectKind { kRead, kWrite, kReadWrite, kDup, kHereDoc, kHereString };

struct Redirect {
  RedirectKind kind;
  Word target;  // a path, an fd (kDup), the delimiter (kHereDoc) or the string
};

struct SimpleCommand {
  std::vector<Word> assignments;  // NAME=value prefixes, as written
  std::vector<Word> argv;
  std::vector<Redirect> redirects;
  // Set when the command runs only after `cd DIR &&` succeeded (DIR absolute, nothing
  // between that could have moved the shell): it starts in DIR.
  std::optional<std::string> started_in;
};

struct ParsedScript {
  std::vector<SimpleCommand> commands;  // in source order; a $( ) before the command it is part of
  std::vector<std::string> uncertain;   // why the script cannot be judged statically
};

ParsedScript ParseShell(std::string_view script);

// The script with every backslash-newline outside single quotes and comments deleted, as the
// shells do before they tokenize (shell_continuations.cc); a reason to ask added to `out`
// where that cannot be done for certain.
std::string JoinContinuations(std::string_view script, ParsedScript& out);

// The words as written, space-separated: "rm -rf \"$X\"".
std::string JoinWords(const std::vector<Word>& words);

}  // namespace sandshim::policy
