// A client of a gVisor sandbox's control server (gVisor's urpc: one JSON call at a time per
// connection, {"method": ..., "arg": ...} answered by {"success", "err", "result"}, files
// passed as SCM_RIGHTS with the call). It is what `runsc exec` itself speaks; calling it
// directly saves starting runsc (a 24 MB Go binary: about 40 ms per exec on this host).
// The server is the sandbox's Sentry; its answers are parsed as untrusted input.
#pragma once

#include <sys/types.h>

#include <boost/json.hpp>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "shim/core/proc.h"
#include "shim/core/result.h"
#include "shim/core/unique_fd.h"

namespace sandshim::runsc {

// The protocol versions sandshim speaks, by `runsc --version` first line; empty when the
// version is not one whose method and field names were checked.
std::string ControlProtocolFor(std::string_view runsc_version);

class ControlConnection {
 public:
  // Connects to the control socket of the sandbox with this id (an abstract socket in the
  // network namespace netns, empty: ours), and refuses one whose listener is not the sandbox
  // process: same pid and same start time (a recycled pid is someone else).
  static Result<ControlConnection> Connect(std::string_view sandbox_id, const proc::ProcessId& sandbox,
                                           const std::filesystem::path& netns);
  // Sends one call; fds travel with its first bytes.
  Status Send(std::string_view method, const boost::json::value& arg, std::span<const int> fds = {});
  // Reads the answer to the call sent last: its result, or the remote error.
  Result<boost::json::value> Receive();
  Result<boost::json::value> Call(std::string_view method, const boost::json::value& arg, std::span<const int> fds = {});
  int fd() const { return fd_.get(); }

 private:
  explicit ControlConnection(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;
};

// Sends sig to the process pid of the sandbox's container cid, on a connection of its own
// (containerManager.Signal, delivered to that process only). sandbox_id: the sandbox whose
// socket to use when cid is a container inside it (empty: cid's own, the root container).
Status SignalInSandbox(std::string_view cid, const proc::ProcessId& sandbox, const std::filesystem::path& netns,
                       pid_t pid, int sig, std::string_view sandbox_id = {});
// The control socket's listener may talk for the sandbox: it is the sandbox process itself
// (pid and start time; start 0: not recorded, pid only). Pure; unit-tested.
Status CheckControlPeer(pid_t peer, std::optional<uint64_t> peer_start, const proc::ProcessId& sandbox);

// The answer text of one call, parsed (pure; unit-tested): the result, or the remote error.
Result<boost::json::value> ParseControlAnswer(const boost::json::value& answer);

}  // namespace sandshim::runsc
