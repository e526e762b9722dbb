// `session exec --tty`: the command gets a terminal, whatever our own stdio is. Where the pty
// comes from depends on the backend: the native runtime makes it inside the container and
// sends its master to a console socket we listen on (runc's protocol); gVisor takes a host
// pty's slave as the process's stdio and presents it as a terminal inside. Either way we hold
// the master, put our own terminal (if any) in raw mode, copy keys to the master and the
// master to our stdout, and pass window-size changes on. Deadline and exit status work as
// without a tty.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>

#include "shim/session/exec_runner.h"

namespace sandshim::session {

// With console_socket, child (forked) must send a pty master to it (listening before the
// fork; removed before returning). Without, child runs with a host pty's slave as its stdio.
Result<RunnerOutcome> RunChildWithTty(const std::function<int()>& child,
                                      const std::optional<std::filesystem::path>& console_socket,
                                      const RunnerOptions& o, const std::function<void(pid_t)>& on_timeout);

}  // namespace sandshim::session
