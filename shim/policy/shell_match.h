// Matching shell(...) rules against a command's words (argv[0] already normalised).
// Allow matches strictly: the rule's words are the command's first words, literally (a
// variable or glob there never matches). Deny and ask match loosely, because a refusal must
// not be dodged by spelling: `rm -fr /`, `rm -r -f /` and `rm -rf -- /` all match
// shell(rm -rf /:*) (the rule's option letters anywhere among the options, its other words
// anywhere among the operands); a dynamic word that could complete the match is "maybe".
#pragma once

#include <vector>

#include "shim/policy/rules.h"
#include "shim/policy/shell_parse.h"

namespace sandshim::policy {

enum class Match { kNo, kMaybe, kYes };

Match MatchAllow(const ShellRule& r, const std::vector<Word>& argv);
Match MatchRefusal(const ShellRule& r, const std::vector<Word>& argv);

}  // namespace sandshim::policy
