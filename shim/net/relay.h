// The relay: a `sandshim proxy` process whose listening socket lives *inside* a network
// namespace (a session's own, on loopback, or the relay namespace at the far end of the
// session's veth link) while its outbound connections leave from the host's. A
// socket keeps the namespace it was created in, so the process enters the namespace just
// long enough to create and bind its listener (setns), returns to the host namespace, and
// from then on accepts from inside and connects from outside. The session's only way out is
// 127.0.0.1:PORT, and everything through it is filtered and audited.
//
// Crash safety (the caller owns the journal):
//   1. The caller picks the pid-file path and journals {"kind":"egress-relay",
//      "data":{"pid_file":P}} durably *before* StartRelay.
//   2. StartRelay forks; the child sets PR_SET_PDEATHSIG(SIGKILL) before exec, so if the
//      caller dies while the relay is starting, the relay dies too (no orphan with no pid
//      file). The relay writes P (pid + start time) once listening, signals ready on a
//      pipe, and only then clears PDEATHSIG and lives on its own (setsid, stdio on
//      /dev/null or a log file, no inherited descriptors).
//   3. Undo (delete, or gc replaying the journal) = StopRelayFromPidFile(P): a missing pid
//      file means the relay never got to listen and died with its creator; otherwise the
//      recorded pid is killed only while its start time still matches (a recycled pid is
//      never hit), then P is removed. Every step is idempotent.
//   4. Independently, the relay exits by itself within a second once its namespace file
//      is unmounted or removed, so removing the namespace also ends a relay whose pid file
//      was lost.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "shim/core/proc.h"
#include "shim/core/result.h"

namespace sandshim::net {

struct RelayOptions {
  std::filesystem::path exe = "/proc/self/exe";  // the (sealed) sandshim binary to run
  std::filesystem::path netns;                    // required: the namespace file to listen in
  std::string host = "127.0.0.1";                 // an address of that namespace to listen on
  uint16_t port = 3128;                           // host:port inside the namespace; 0 = any free port
  std::filesystem::path pid_file;                 // required: journaled by the caller first
  std::filesystem::path log_file;                 // relay's stderr; empty = /dev/null
  // Filtering flags passed through to `sandshim proxy`, e.g. {"--allow-domain", "pypi.org",
  // "--audit", "/run/.../egress.log", "--session", "s1"} or {"--proxy", "http://corp:3128"}.
  std::vector<std::string> proxy_args;
  std::chrono::milliseconds ready_timeout{10'000};
};

struct RelayHandle {
  proc::ProcessId process;
  uint16_t port = 0;  // the port actually listening inside the namespace
  std::string listen;  // "HOST:PORT"
};

// The argv StartRelay runs (pure; unit-tested).
std::vector<std::string> RelayArgv(const RelayOptions& o, int ready_fd);
Result<RelayHandle> StartRelay(const RelayOptions& o);
// Stops the process if it is still the one recorded; ESRCH or a different start time = done.
Status StopRelay(const proc::ProcessId& p);
// Reads the pid file and stops that process, then removes the pid file. Missing file = done.
Status StopRelayFromPidFile(const std::filesystem::path& pid_file);

// Pid file content (JSON) written by the relay itself.
std::string FormatPidFile(const proc::ProcessId& p, const std::string& listen);
Result<RelayHandle> ParsePidFile(const std::string& text);

}  // namespace sandshim::net
