// Egress identities of a session's credential contexts (docs/CONTEXTS.md), as the relay's
// proxy sees them: each context's proxy variables carry "ctx-NAME:TOKEN" as proxy
// credentials, and the proxy applies that context's own domain rules. A request without
// credentials is the default context's and gets the session's rules; wrong credentials get
// 407. The tokens live in the contexts' environments (each readable by its own context only)
// and in the contexts file, root's, which the relay opens before it drops privileges and
// re-reads (pread on the kept descriptor) when it changes.
//
// File shape: {"contexts": [{"name": "platform", "token": "...", "path": "...",
// "allow_domains": [...], "deny_domains": [...]}]}. A context without rules of its own gets
// the session's. "path" (gVisor): the key its container's outside half starts every relay
// connection with (ctx::kPathLinePrefix KEY CRLF, ctx-helper/wire.h): such a connection is that context's, and
// credentials of another context on it are refused (403 context-path), as on a native
// context's own relay. The default context has a path and no token.
#pragma once

#include <sys/stat.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shim/core/result.h"
#include "shim/core/unique_fd.h"
#include "shim/net/domain_rules.h"

namespace sandshim::net {

struct ContextEgressEntry {
  std::string token;  // empty: no credentials name this context (the default one)
  std::string path;   // empty: none
  std::optional<DomainRules> rules;  // nullopt: the session's
};
using ContextEgressTable = std::map<std::string, ContextEgressEntry, std::less<>>;

// Pure: the file's text to a table (rules parsed; a bad rule is an error naming the context).
Result<ContextEgressTable> ParseContextEgress(std::string_view text);
// Pure: "Basic base64(user:password)" -> (user, password); nullopt if not that shape.
std::optional<std::pair<std::string, std::string>> ParseProxyBasic(std::string_view header);
// The user name a context's credentials carry.
std::string ContextProxyUser(std::string_view name);

struct EgressIdentity {
  std::string context;              // "default" without credentials
  const DomainRules* rules = nullptr;  // nullptr: the session's
};

class ContextEgress {
 public:
  // Opens the file now (before a privilege drop); it may be empty.
  static Result<std::shared_ptr<ContextEgress>> Open(const std::string& path);
  // Who sent a request with this Proxy-Authorization value (empty: none); an error (for a
  // 407) when credentials are there but name no context or carry the wrong token.
  Result<EgressIdentity> Identify(std::string_view proxy_authorization);
  // The context whose path key this is; nullopt for none (not claimed yet, or gone).
  std::optional<std::string> ContextOfPath(std::string_view key);

 private:
  explicit ContextEgress(UniqueFd fd) : fd_(std::move(fd)) {}
  void Reload();
  UniqueFd fd_;
  struct timespec mtime_ {};
  off_t size_ = -1;
  ContextEgressTable table_;
};

}  // namespace sandshim::net
