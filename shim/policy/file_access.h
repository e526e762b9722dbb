// The paths a command visibly reads or writes, for file rules: its redirections (judged in
// decide.cc) and, for the tools options.h models, their operands and path-valued options as
// the tool reads them (sort -o writes, grep -f reads, cp -t writes, uniq IN OUT, dd of=).
// A modeled tool with an option it does not know is uncertain (the policy asks). Any other
// command's arguments may be paths used either way: they are checked against deny and ask
// file rules, never required to be allowed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shim/policy/rules.h"
#include "shim/policy/shell_parse.h"

namespace sandshim::policy {

struct PathUse {
  Word word;
  std::optional<Access> access;  // nullopt: not known which (an unknown command's argument)
  bool recursive = false;        // everything below it too (grep -r, cp -r, rm -r)
};

struct PathsFound {
  std::vector<PathUse> uses;
  std::string uncertain;  // non-empty: the arguments cannot be read with certainty
};

PathsFound PathsUsed(std::string_view name, const std::vector<Word>& argv);

}  // namespace sandshim::policy
