#include "shim/net/header_names.h"

#include <array>

namespace sandshim::net {

std::string CanonicalHeaderName(std::string_view name) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!name.empty() && space(name.front())) name.remove_prefix(1);
  while (!name.empty() && space(name.back())) name.remove_suffix(1);
  std::string out(name);
  for (auto& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) c = '-';
  }
  return out;
}

static bool In(std::string_view canonical, std::initializer_list<std::string_view> names) {
  for (auto n : names)
    if (canonical == n) return true;
  return false;
}

bool ReflectableHeader(std::string_view name) {
  std::string c = CanonicalHeaderName(name);
  if (In(c, {"origin", "referer", "referrer", "user-agent", "host", "via", "forwarded", "request-id", "x-request-id",
             "x-correlation-id", "correlation-id", "x-amzn-trace-id", "traceparent", "tracestate", "idempotency-key",
             "x-idempotency-key", "timing-allow-origin", "x-real-ip", "x-client-ip", "true-client-ip",
             "cf-connecting-ip", "x-trace-id", "x-span-id", "b3", "uber-trace-id", "x-cloud-trace-context",
             "x-client-trace-id", "x-transaction-id", "x-req-id", "x-requestid", "request-context", "x-ms-request-id",
             "x-ms-client-request-id", "x-github-request-id", "accept", "content-type", "expect", "cookie",
             "destination", "location", "content-location", "link", "range", "if-match", "if-none-match",
             "x-original-url", "x-rewrite-url", "x-http-method-override", "x-http-method", "x-method-override"}))
    return true;
  for (std::string_view p : {"access-control-", "x-forwarded-", "sec-", "x-b3-", "x-datadog-", "x-debug",
                             "x-echo", "x-envoy-", "x-original-", "accept-", "content-", "if-"})
    if (c.starts_with(p)) return true;
  return false;
}

bool DefaultCredentialHeader(std::string_view name) {
  return In(CanonicalHeaderName(name), {"authorization", "x-api-key", "api-key", "x-auth-token", "private-token"});
}

bool MethodOverrideHeader(std::string_view name) {
  return In(CanonicalHeaderName(name), {"x-http-method-override", "x-http-method", "x-method-override"});
}

bool PathOverrideHeader(std::string_view name) {
  return In(CanonicalHeaderName(name), {"x-original-url", "x-rewrite-url", "x-original-uri", "x-forwarded-uri"});
}

}  // namespace sandshim::net
