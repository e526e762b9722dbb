// `--env K` (no `=`): the value comes from sandshim's own environment, docker's `-e K`
// semantics, so a secret never has to sit on sandshim's argv where `ps` shows it (L3).
#pragma once

#include <string>
#include <string_view>

#include "shim/core/result.h"

namespace sandshim::cli {

// "K=V" is returned as is; "K" becomes "K=<value of K in this process's environment>".
// An unset K is an error rather than silently dropped: a missing secret should fail loudly.
// forget: K's value also leaves this process's environment (proc::ForgetEnv), for commands
// that leave long-lived processes behind (session create, context create: issue #31); PATH
// stays (not a secret, and sandshim finds runsc with it).
Result<std::string> ResolveEnvArg(std::string_view arg, bool forget = false);

}  // namespace sandshim::cli
