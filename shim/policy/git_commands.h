// git's ways to run what no rule names: under `shell(git:*)` an alias, a helper, a config key
// holding a command or an option whose value git runs through sh ran what no rule allows.
// Each asks (decide.cc raises it). Pure code.
#pragma once

#include <string>
#include <vector>

#include "shim/policy/shell_parse.h"

namespace sandshim::policy {

// Why a rule naming `git X` cannot see what runs: git -c / --config-env / --exec-path, or a
// subcommand git does not have (an alias, a helper); empty if none.
std::string GitIndirection(const std::vector<Word>& words);

// Why this git command may run a command given on its command line or set in configuration
// (grep -O, rebase -x, -c alias.x='!cmd', git config core.fsmonitor CMD...); empty if not.
std::string GitRunsCommand(const std::vector<Word>& words);

}  // namespace sandshim::policy
