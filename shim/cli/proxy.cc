// `proxy`: the filtering egress proxy (foreground), and the relay start/stop and network
// namespace steps a session's `proxy` network mode is made of, exposed for scripts and tests:
//   sandshim proxy [--listen ADDR:PORT] [--netns PATH] [filter flags...]     run in the foreground
//   sandshim proxy --detach --netns PATH --pid-file F [filter flags...]     StartRelay; prints JSON
//   sandshim proxy --stop --pid-file F                                      StopRelayFromPidFile
//   sandshim proxy --create-netns PATH | --remove-netns PATH               CreateNetns / RemoveNetns
#include <cstdlib>
#include <iostream>

#include "shim/cli/verbs.h"
#include "shim/net/egress.h"
#include "shim/linux/netns.h"
#include "shim/net/proxy_process.h"
#include "shim/net/relay.h"

namespace sandshim::cli {

namespace {

struct ProxyFlags {
  net::ProxyProcessOptions o;
  bool detach = false, stop = false;
  std::string create_netns, remove_netns, log_file, exe = "/proc/self/exe";
};

int RunProxyVerb(const ProxyFlags& f) {
  if (!f.create_netns.empty()) return ExitWith(net::CreateNetns(f.create_netns));
  if (!f.remove_netns.empty()) return ExitWith(net::RemoveNetns(f.remove_netns));
  if (f.stop) {
    if (f.o.pid_file.empty()) return ExitWith(Status(MakeError("--stop needs --pid-file", EINVAL)));
    return ExitWith(net::StopRelayFromPidFile(f.o.pid_file));
  }
  if (f.detach) {
    net::RelayOptions r;
    r.exe = f.exe;
    r.netns = f.o.netns;
    auto colon = f.o.listen.rfind(':');
    r.port = static_cast<uint16_t>(colon == std::string::npos ? 0 : std::atoi(f.o.listen.c_str() + colon + 1));
    if (colon != std::string::npos && colon > 0) r.host = f.o.listen.substr(0, colon);
    r.pid_file = f.o.pid_file;
    r.log_file = f.log_file;
    // An upstream taken from SANDSHIM_PROXY_UPSTREAM stays off the relay's argv: the relay
    // inherits the environment and reads the variable itself.
    auto args = f.o;
    if (const char* env = ::getenv("SANDSHIM_PROXY_UPSTREAM"); env && args.upstream == env) args.upstream.clear();
    r.proxy_args = net::ProxyArgs(args);
    auto h = net::StartRelay(r);
    if (!h) return ExitWith(h);
    PrintJson(boost::json::object{{"pid", h->process.pid}, {"start", h->process.start}, {"listen", h->listen},
                                  {"port", h->port}});
    return 0;
  }
  return ExitWith(net::RunProxy(f.o));
}

}  // namespace

void RegisterProxy(Verbs& v) {
  auto f = std::make_shared<ProxyFlags>();
  auto& o = f->o;
  auto* sub = v.Add("proxy", "filtering egress proxy (HTTP CONNECT + plain HTTP) with domain and address rules",
                    [f] { return RunProxyVerb(*f); });
  sub->add_option("--listen", o.listen, "ADDR:PORT to listen on (port 0: any free port)")->capture_default_str();
  sub->add_option("--netns", o.netns, "create the listener inside this network namespace file (relay mode)");
  sub->add_option("--allow-domain", o.allow_domains, "allow a host: example.com, *.example.com, .example.com, host:443, * (repeatable)");
  sub->add_option("--deny-domain", o.deny_domains, "deny a host, same forms; deny wins (repeatable)");
  sub->add_option("--policy", o.policy_file, "JSON policy file ({\"network\":{\"allowedDomains\":[...],...}})");
  sub->add_option("--proxy", o.upstream,
                  "chain to this upstream proxy (http://[user:pass@]host:port); with credentials use "
                  "SANDSHIM_PROXY_UPSTREAM or --proxy-file: argv is visible in ps")
      ->envname("SANDSHIM_PROXY_UPSTREAM");
  sub->add_option("--proxy-file", o.upstream_file, "read the upstream proxy URL from this file's first line");
  sub->add_flag("--allow-private", o.allow_private, "allow private, CGNAT and unique-local destination addresses");
  sub->add_option("--allow-cidr", o.allow_cidrs, "allow destination addresses in this CIDR (repeatable)");
  sub->add_option("--resolve", o.resolve, "test seam: NAME=IP[,IP] fixed answer; repeat a name for successive lookups");
  sub->add_option("--audit", o.audit_file, "append one JSON line per connection to this file");
  sub->add_option("--session", o.session, "session id written into audit lines");
  sub->add_option("--secrets", o.secrets_file, "secret rules (JSON: name, hosts, header, placeholder; no values)");
  sub->add_option("--secrets-socket", o.secrets_socket, "with --secrets: the 0600 unix socket values arrive on");
  sub->add_option("--secrets-ca-key", o.secrets_ca_key, "with --secrets: the session CA's key (PEM)");
  sub->add_option("--secrets-ca-cert", o.secrets_ca_cert, "with --secrets: the session CA's certificate (PEM)");
  sub->add_option("--secrets-trust", o.secrets_trust, "with --secrets: CA bundle intercepted origins are verified with (default: the system's)");
  sub->add_option("--contexts-file", o.contexts_file, "credential contexts: per-context proxy credentials and rules (JSON)");
  sub->add_option("--bound-context", o.bound_context,
                  "the one context whose connections reach this relay; other contexts' credentials get 403");
  sub->add_flag("--context-paths", o.context_paths,
                "with --contexts-file: a connection starting with a context's path line is that context's; other contexts' credentials on it get 403");
  sub->add_option("--max-connections", o.max_connections, "concurrent connections; more get 503")->capture_default_str();
  sub->add_option("--max-header-bytes", o.max_header_bytes, "request head size limit; larger get 431")->capture_default_str();
  sub->add_option("--idle-timeout", o.idle_timeout_s, "seconds without traffic before a tunnel is closed")->capture_default_str();
  sub->add_option("--relay-mode", o.relay_mode, "tunnel bytes with copy (read/send, default) or splice")
      ->check(CLI::IsMember({"copy", "splice"}))
      ->capture_default_str();
  sub->add_option("--pid-file", o.pid_file, "write {pid,start,listen} here once listening");
  sub->add_option("--ready-fd", o.ready_fd, "write \"ready ADDR:PORT\" to this fd once listening");
  sub->add_flag("--detach", f->detach, "start as a detached relay (needs --netns and --pid-file); print its pid as JSON");
  sub->add_option("--relay-log", f->log_file, "with --detach: the relay's stderr");
  sub->add_option("--exe", f->exe, "with --detach: the sandshim binary to run")->capture_default_str();
  sub->add_flag("--stop", f->stop, "stop the relay named by --pid-file (idempotent)");
  sub->add_option("--create-netns", f->create_netns, "create a network namespace file with only lo up, and exit");
  sub->add_option("--remove-netns", f->remove_netns, "unmount and remove a network namespace file (idempotent), and exit");
}

}  // namespace sandshim::cli
