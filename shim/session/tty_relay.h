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

// With console_socket, the command's side must send a pty master to it (listening before the
// start; removed before returning). Without, it runs with a host pty's slave as its stdio,
// as the controlling terminal of a new session.
Result<RunnerOutcome> RunChildWithTty(CommandSide side,
                                      const std::optional<std::filesystem::path>& console_socket,
                                      const RunnerOptions& o, const std::function<void(proc::Running&)>& on_timeout);

}  // namespace sandshim::session
