#include "shim/net/egress.h"

#include "shim/linux/netns.h"
#include "shim/net/relay.h"

namespace sandshim::net {

std::vector<std::string> ProxyArgs(const ProxyProcessOptions& o) {
  std::vector<std::string> a;
  auto each = [&](const char* flag, const std::vector<std::string>& vs) {
    for (const auto& v : vs) a.insert(a.end(), {flag, v});
  };
  auto one = [&](const char* flag, const std::string& v) {
    if (!v.empty()) a.insert(a.end(), {flag, v});
  };
  each("--allow-domain", o.allow_domains);
  each("--deny-domain", o.deny_domains);
  each("--allow-cidr", o.allow_cidrs);
  each("--resolve", o.resolve);
  one("--policy", o.policy_file);
  one("--proxy", o.upstream);
  one("--proxy-file", o.upstream_file);
  if (o.allow_private) a.emplace_back("--allow-private");
  one("--audit", o.audit_file);
  one("--session", o.session);
  one("--secrets", o.secrets_file);
  one("--secrets-socket", o.secrets_socket);
  one("--secrets-ca-key", o.secrets_ca_key);
  one("--secrets-ca-cert", o.secrets_ca_cert);
  one("--secrets-trust", o.secrets_trust);
  one("--contexts-file", o.contexts_file);
  one("--bound-context", o.bound_context);
  if (o.context_paths) a.emplace_back("--context-paths");
  a.insert(a.end(), {"--max-connections", std::to_string(o.max_connections), "--max-header-bytes",
                     std::to_string(o.max_header_bytes), "--idle-timeout", std::to_string(o.idle_timeout_s),
                     "--relay-mode", o.relay_mode});
  return a;
}

std::vector<std::string> ProxyEnv(uint16_t port) {
  std::string url = "http://127.0.0.1:" + std::to_string(port);
  // Both spellings: curl reads only lower-case http_proxy; most others take either.
  return {"HTTP_PROXY=" + url, "HTTPS_PROXY=" + url, "http_proxy=" + url, "https_proxy=" + url,
          "NO_PROXY=localhost,127.0.0.1", "no_proxy=localhost,127.0.0.1"};
}

}  // namespace sandshim::net
