#include "shim/net/audit.h"

#include <fcntl.h>

#include <cstdio>

#include <boost/json.hpp>

#include "shim/core/log.h"

namespace sandshim::net {

std::string FormatAudit(const AuditRecord& r, const std::string& ts) {
  // "event" as in a session's own audit lines, which share the file in proxy mode.
  boost::json::object o{{"ts", ts},
                        {"event", "egress"},
                        {"session", r.session},
                        {"context", r.context},
                        {"client", r.client},
                        {"method", r.method},
                        {"host", r.host},
                        {"port", r.port},
                        {"address", r.address},
                        {"decision", r.decision},
                        {"rule", r.rule},
                        {"status", r.status},
                        {"reason", r.reason},
                        {"bytes_up", r.bytes_up},
                        {"bytes_down", r.bytes_down}};
  if (!r.secret.empty()) o["secret"] = r.secret;
  if (!r.path.empty()) o["path"] = r.path;
  // Boost.JSON prints doubles in exponent form (5.7E0); a fixed three-decimal number reads
  // better in a log and parses the same.
  std::string line = boost::json::serialize(o);
  line.pop_back();
  char ms[48];
  std::snprintf(ms, sizeof ms, ",\"duration_ms\":%.3f}\n", r.duration_ms < 0 ? 0.0 : r.duration_ms);
  return line + ms;
}

Result<AuditLog> AuditLog::Open(const std::filesystem::path& file) {
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoError("open audit log " + file.string());
  AuditLog a;
  a.fd_.Reset(fd);
  return a;
}

void AuditLog::Write(const AuditRecord& r) {
  if (!fd_.valid()) return;
  std::string line = FormatAudit(r, log::NowRfc3339());
  // One write: a short write here would tear the line, and O_APPEND keeps whole lines whole.
  if (::write(fd_.get(), line.data(), line.size()) != static_cast<ssize_t>(line.size()))
    log::Warn("audit log: short or failed write");
}

}  // namespace sandshim::net
