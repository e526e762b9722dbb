// A client of a gVisor sandbox's control server (gVisor's urpc: one JSON call at a time per
// connection, {"method": ..., "arg": ...} answered by {"success", "err", "result"}, files
// passed as SCM_RIGHTS with the call). It is what `runsc exec` itself speaks; calling it
// directly saves starting runsc (a 24 MB Go binary: about 40 ms per exec on this host).
// The server is the sandbox's Sentry; its answers are parsed as untrusted input.
#pragma once

#include <sys/types.h>

#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "shim/core/proc.h"
#include "shim/core/result.h"
#include "shim/core/unique_fd.h"

namespace sandshim::runsc {

// Where a sandbox's control server listens, as the probe (probe.h) found for its runsc:
//  kAbstract: "\0runsc-sandbox.<id>\0" in the network namespace of the `runsc create` that
//    made it (Debian 12's 0.0~20221219): hidden in the private control namespace
//    (control_netns.h), since abstract names have no file mode.
//  kPath: "<runsc root>/runsc-<id>.sock" (runsc since 2023; Debian 13's 0.0~20240729): a
//    file, not scoped by network namespace. What guards it is the runsc root: sandshim's is
//    a root-owned 0700 directory (Connect refuses any other), so no other user can reach it.
// Both kinds: the listener must be the sandbox process itself (CheckControlPeer).
enum class ControlSocket { kNone, kAbstract, kPath };

// The protocol names recorded per container (GvisorData::control) and by the probe: the
// socket kind; the calls and ExecArgs fields are the same on both (GuestFDs, which
// 2024 needs, is an unknown field 2022's JSON decoder ignores).
inline constexpr std::string_view kControlAbstract = "urpc-abstract";
inline constexpr std::string_view kControlPath = "urpc-path";
// A recorded protocol name as a socket kind (pure): "urpc-20221219", what records made
// before the probe named it, is the abstract one; empty or unknown: none.
ControlSocket ControlSocketOf(std::string_view protocol);

struct ControlAddress {
  ControlSocket kind = ControlSocket::kNone;
  std::string sandbox_id;            // runsc id of the sandbox
  std::filesystem::path runsc_root;  // kPath: the directory the socket is in
  std::filesystem::path netns;       // kAbstract: the namespace the name is bound in (empty: ours)
};

// The socket file of a kPath sandbox (pure).
std::filesystem::path ControlSocketPath(const std::filesystem::path& runsc_root, std::string_view sandbox_id);
// The directory a path socket is in may guard it: a directory owned by us (root) that no
// one else may search or write (pure over its stat; unit-tested).
Status CheckControlDir(uid_t owner, mode_t mode, uid_t me);

class ControlConnection {
 public:
  // Connects to the control socket at this address, and refuses one whose listener is not
  // the sandbox process: same pid and same start time (a recycled pid is someone else).
  static Result<ControlConnection> Connect(const ControlAddress& at, const proc::ProcessId& sandbox);
  // Sends one call; fds travel with its first bytes.
  Status Send(std::string_view method, const boost::json::value& arg, std::span<const int> fds = {});
  // Reads the answer to the call sent last: its result, or the remote error. Gives up
  // (ECANCELED) when an ending signal the caller blocks is pending, and (ETIMEDOUT) at the
  // deadline if one is set.
  Result<boost::json::value> Receive();
  void SetDeadline(std::chrono::steady_clock::time_point at) { deadline_ = at; }
  void SetDeadline(std::chrono::steady_clock::duration d) { deadline_ = std::chrono::steady_clock::now() + d; }
  Result<boost::json::value> Call(std::string_view method, const boost::json::value& arg, std::span<const int> fds = {});
  int fd() const { return fd_.get(); }

 private:
  explicit ControlConnection(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
};

// Sends sig to the process pid of the sandbox's container cid, on a connection of its own
// (containerManager.Signal, delivered to that process only), through the sandbox at `at`.
Status SignalInSandbox(const ControlAddress& at, std::string_view cid, const proc::ProcessId& sandbox, pid_t pid,
                       int sig);
// The control socket's listener may talk for the sandbox: it is the sandbox process itself
// (pid and start time; start 0: not recorded, pid only). Pure; unit-tested.
Status CheckControlPeer(pid_t peer, std::optional<uint64_t> peer_start, const proc::ProcessId& sandbox);

// The answer text of one call, parsed (pure; unit-tested): the result, or the remote error.
Result<boost::json::value> ParseControlAnswer(const boost::json::value& answer);

}  // namespace sandshim::runsc
