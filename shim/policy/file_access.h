// The paths a command visibly reads or writes, for file rules: its redirections (judged in
// decide.cc) and, for well-known commands, its arguments (cat reads, rm and touch write, cp
// reads all but the last). Any other command's arguments may be paths used either way: they
// are checked against deny and ask file rules, never required to be allowed.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "shim/policy/rules.h"
#include "shim/policy/shell_parse.h"

namespace sandshim::policy {

struct PathUse {
  Word word;
  std::optional<Access> access;  // nullopt: not known which (an unknown command's argument)
};

std::vector<PathUse> PathsUsed(std::string_view name, const std::vector<Word>& argv);

}  // namespace sandshim::policy
