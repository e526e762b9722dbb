// The whole `sandshim proxy` process: options in, proxy running until SIGTERM/SIGINT (or,
// as a relay, until its network namespace file disappears). The verb only parses flags.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::net {

struct ProxyProcessOptions {
  std::string listen = "127.0.0.1:3128";  // ADDR:PORT; port 0 picks a free one (see ready/pid file)
  std::string netns;                      // listen inside this namespace; connect from ours
  std::vector<std::string> allow_domains, deny_domains, allow_cidrs, resolve;
  std::string policy_file;
  std::string upstream;                   // http://host:port
  std::string upstream_file;              // or the URL read from this file: credentials off argv (L3)
  bool allow_private = false;
  std::string audit_file;
  std::string session;
  std::string contexts_file;  // credential contexts' identities and rules (context_egress.h)
  std::string bound_context;  // native: the context this relay serves (ProxyOptions::bound_context)
  bool context_paths = false;  // gVisor: connections may carry a context's path (ProxyOptions::context_paths)
  size_t max_connections = 512;
  size_t max_header_bytes = 16 * 1024;
  unsigned idle_timeout_s = 600;
  std::string relay_mode = "copy";  // copy | splice
  // Secrets (docs/SECRETS.md): the rules file (names, hosts, templates, placeholders; no
  // values), the control socket values arrive on, the session CA (KEY and CERT PEM files,
  // read while root) and the trust store intercepted origins are verified with.
  std::string secrets_file, secrets_socket, secrets_ca_key, secrets_ca_cert, secrets_trust;
  std::string pid_file;  // written (atomically) once listening: {"pid","start","listen"}
  int ready_fd = -1;     // "ready ADDR:PORT\n" written then closed once listening
};

// The upstream URL from --proxy (or SANDSHIM_PROXY_UPSTREAM, which the CLI maps onto it) or
// from the first line of --proxy-file's text; both at once is an error. Pure, for tests.
Result<std::string> ResolveUpstream(const std::string& flag, const std::string& file_text, bool have_file);

// Runs until told to stop; returns the reason it could not start (or Ok on a clean stop).
Status RunProxy(const ProxyProcessOptions& o);

}  // namespace sandshim::net
