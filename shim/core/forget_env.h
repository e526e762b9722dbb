// Taking a value sandshim read from its own environment out of it for good (issue #31): a
// context's `--env K`, a secret's `--secret-env`.
#pragma once

#include <string>

namespace sandshim::proc {

// KEY's value's bytes are overwritten where they lie (for a variable we were started with,
// the block the kernel keeps for /proc/<pid>/environ, which every process we fork shows for
// its whole life: a container's waiter) and the variable is unset (nothing we exec inherits
// it: runsc, a relay).
void ForgetEnv(const std::string& key);

}  // namespace sandshim::proc
