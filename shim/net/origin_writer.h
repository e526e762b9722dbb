// What both transports write after the request gate (request_gate.h): the head the origin
// gets (values in, then wiped from the verdict), one audit line per injected secret (name,
// host, method, path; never the value), and the proxy's refusal (reason in the body, rule in
// X-Sandshim-Rule). One writer each, so plain HTTP and intercepted TLS cannot drift apart.
#pragma once

#include <string>

#include "shim/net/audit.h"
#include "shim/net/request_gate.h"

namespace sandshim::net {

// The origin-form head for v (OriginHead), and v.headers wiped (they may hold values).
// default_port: the scheme's (80 plain, 443 inside TLS), left out of Host.
std::string WriteOriginHead(std::string_view method, Verdict& v, uint16_t default_port);
// One "inject" line per secret in v.injected, on top of the connection's record so far.
void AuditInjections(AuditLog& audit, const AuditRecord& conn, const Verdict& v);
// The request's path without its query (what audit lines name).
std::string AuditPath(std::string_view origin_form);
// "HTTP/1.1 STATUS TEXT" with the reason as a text body, the rule header, Connection: close.
std::string RefusalResponse(int status, const std::string& rule, const std::string& reason);

}  // namespace sandshim::net
