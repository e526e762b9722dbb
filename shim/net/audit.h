// The egress audit log: one JSON line per client connection, appended with O_APPEND and
// written with a single write(2), so lines from concurrent proxies sharing a file never
// interleave (a local file write of one buffer under O_APPEND is atomic in practice).
//
//   {"ts":"2026-11-22T14:00:00.123456789Z","session":"s1","client":"127.0.0.1:40000",
//    "method":"CONNECT","host":"pypi.org","port":443,"address":"151.101.0.223",
//    "decision":"allow","rule":"pypi.org","status":200,"reason":"...",
//    "bytes_up":517,"bytes_down":4096,"duration_ms":12.5}
//
// decision is "allow", "deny" (or "inject": one line per secret put into a request, with
// "secret" and "path"; never the value), (a rule refused: the rule field names it) or "error" (the
// request was malformed, resolution or the connection failed, or a limit was hit).
// bytes_up counts what reached the destination, bytes_down what came back to the client;
// neither counts the proxy's own status lines.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "shim/core/result.h"
#include "shim/core/unique_fd.h"

namespace sandshim::net {

struct AuditRecord {
  std::string session, client, method, host, address, decision, rule, reason;
  // An injection line (decision "inject"): the secret's name and the request's path
  // (without its query); both empty on connection lines, and then not written.
  std::string secret, path;
  std::string context;  // the credential context that asked (empty: the session has none)
  uint16_t port = 0;
  int status = 0;
  uint64_t bytes_up = 0, bytes_down = 0;
  double duration_ms = 0;
};

// The line for r, ending in '\n' (pure; unit-tested). ts is passed in for testability.
std::string FormatAudit(const AuditRecord& r, const std::string& ts);

class AuditLog {
 public:
  AuditLog() = default;  // discards
  static Result<AuditLog> Open(const std::filesystem::path& file);
  void Write(const AuditRecord& r);

 private:
  UniqueFd fd_;
};

}  // namespace sandshim::net
