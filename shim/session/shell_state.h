// The persistent-shell mode of `session exec --shell`: each command runs in a fresh
// `/bin/sh -c`, but starts in the directory and with the exported variables the previous
// one ended with, so `cd` and `export` carry from one exec to the next. The state is kept
// inside the sandbox (in its /tmp), never on the host.
#pragma once

#include <string>
#include <vector>

namespace sandshim::session {

inline constexpr const char* kShellStateDir = "/tmp/.sandshim-shell";

// argv that runs `script` with the saved state restored first and saved again on exit,
// keeping the script's exit status.
std::vector<std::string> ShellArgv(const std::string& script);

}  // namespace sandshim::session
