// sandshim-ctx's own wire formats (docs/CONTEXTS.md, "The context broker"), shared by the
// client (`run`), the broker (the inside half of `init`) and the outside half. Everything here
// runs inside the gVisor sandbox; nothing is trusted beyond the kernel's SO_PEERCRED.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sandshim::ctx {

// Where the broker listens: under the context's own /tmp (a tmpfs of its container's mount
// namespace, which no other context sees), in a root-only directory made before user code runs.
inline constexpr const char* kBrokerDir = "/tmp/.sshim";
inline constexpr const char* kBrokerSocket = "/tmp/.sshim/broker.sock";
// The broker's pid (decimal), for a client that enters its network namespace itself where the
// Sentry lets it (setns: runsc 2024; run.cc's direct path).
inline constexpr const char* kBrokerPidFile = "/tmp/.sshim/broker.pid";

// What a client asks for. The client itself runs as root (the session exec's capabilities),
// so these are what its exec was meant to run as.
struct Request {
  uint32_t uid = 0, gid = 0;
  std::vector<uint32_t> groups;
  std::string cwd;
  bool tty = false, no_new_privs = false;
  bool end_leftovers = false;  // what the command starts ends with it (sweep.h; not: session exec --keep)
  uint64_t cap_eff = 0, cap_perm = 0, cap_inh = 0, cap_bound = ~0ull, cap_amb = 0;
  std::vector<std::string> argv, env;
};

// NUL-separated fields (no NUL can occur inside an argument or an environment entry).
std::string Encode(const Request& r);
bool Decode(const std::string& bytes, Request& out);

// The broker's answer, one per request: kStatus with the command's wait status when it ended,
// or kError with an errno and no command. (kPid, once sent as the command started, is no
// longer sent: the client ignores it from an older broker.)
enum class Reply : int32_t { kPid = 1, kStatus = 2, kError = 3 };
struct ReplyMsg {
  Reply kind;
  int32_t value;
};

// Requests are bounded (argv + environment): a larger one is refused, not buffered.
inline constexpr uint32_t kMaxRequest = 4u << 20;

// The context's egress path (docs/CONTEXTS.md, "Replayed tokens"): a host file bound
// read-only here holds a key (64 hex digits) made with the context's container; the outside
// half starts every connection it makes to the relay with "SSHIM-PATH <key>\r\n", and the
// relay, which the session layer told which context holds that key, takes the connection as
// that context's whatever credentials it then sends (net/proxy_server.cc reads the line).
inline constexpr const char* kPathFile = "/.sshim/path";
inline constexpr std::string_view kPathLinePrefix = "SSHIM-PATH ";

}  // namespace sandshim::ctx
