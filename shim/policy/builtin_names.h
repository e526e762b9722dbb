// The variables a builtin sets by name, without a NAME= word (polred RC1, RC5): `read NAME`,
// `printf -v NAME`, `wait -p NAME`, `export/readonly/local NAME[+]=V`, `unset NAME`,
// `test -v NAME`, and `set -k` / `set -o keyword` (after which every NAME=V argument is an
// assignment). Each is judged as the assignment it is (decide.cc: PATH, PS4, BASH_CMDS[x]...
// ask). bash evaluates a name's subscript as arithmetic, $( ) included, so a word that may be
// a name and is known only at run time asks too. Pure code.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shim/policy/shell_parse.h"

namespace sandshim::policy {

struct NamesSet {
  std::vector<Word> names;  // as NAME=VALUE words (VALUE may be empty: set at run time)
  std::string uncertain;    // non-empty: a name that cannot be known, or an option we do not model
};

// What the inert builtin `name` (wrappers.h IsInertBuiltin) with argv `words` assigns.
NamesSet NamesSetBy(std::string_view name, const std::vector<Word>& words);

}  // namespace sandshim::policy
