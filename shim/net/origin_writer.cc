#include "shim/net/origin_writer.h"

#include "shim/net/secret_bytes.h"

namespace sandshim::net {

std::string WriteOriginHead(std::string_view method, Verdict& v, uint16_t default_port) {
  auto head = OriginHead(method, v.target, v.headers, default_port);
  for (auto& [k, value] : v.headers) Wipe(value.data(), value.size());
  return head;
}

std::string AuditPath(std::string_view origin_form) { return std::string(origin_form.substr(0, origin_form.find('?'))); }

void AuditInjections(AuditLog& audit, const AuditRecord& conn, const Verdict& v) {
  for (const auto& name : v.injected) {
    AuditRecord a = conn;
    a.decision = "inject";
    a.rule = a.secret = name;
    a.path = AuditPath(v.target.origin_form);
    audit.Write(a);
  }
}

static const char* StatusText(int status) {
  switch (status) {
    case 200: return "Connection established";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 407: return "Proxy Authentication Required";
    case 408: return "Request Timeout";
    case 411: return "Length Required";
    case 431: return "Request Header Fields Too Large";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
  }
  return "Error";
}

std::string RefusalResponse(int status, const std::string& rule, const std::string& reason) {
  std::string body = "sandshim: " + reason + "\n";
  return "HTTP/1.1 " + std::to_string(status) + " " + StatusText(status) +
         "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nX-Sandshim-Rule: " + rule + "\r\nConnection: close\r\n\r\n" + body;
}

}  // namespace sandshim::net
