// Options whose value a program runs as a program or a shell command (polred r4 R4, R7):
// `tar -I CMD`, `rsync -e CMD`, `zip -TT CMD`, `man -P CMD`, `scp -S CMD`, `vim -c '!CMD'`.
// As visible as `find -exec`, but what they run is not unwrapped, so under an allowed
// program they ran what no rule allows (and the exec guard sees deny rules only). One table;
// any spelling that may be such an option asks. Pure code.
#pragma once

#include <string>
#include <vector>

#include "shim/policy/shell_parse.h"

namespace sandshim::policy {

// Why words[0] with these words may run a program given on its command line; empty if not.
std::string RunsCommandOption(const std::vector<Word>& words);

}  // namespace sandshim::policy
