// Contexts::CreateLocked as one sandbox assembly (store/assembly.h): where the context goes,
// its spec and its spare are decided first (a refused create costs nothing); then it is
// journaled once (the session's journal, one step::SessionContext whose undo removes all of
// it) and the steps below make it, in order, the host effects through the seam (store/host.h).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include "bundle/process.h"
#include "bundle/spec.h"
#include "shim/core/fault.h"
#include "shim/core/fs.h"
#include "shim/core/log.h"
#include "shim/core/proc.h"
#include "shim/core/scope_exit.h"
#include "shim/net/domain_rules.h"
#include "shim/linux/netns.h"
#include "shim/net/relay.h"
#include "shim/net/secret_book.h"
#include "shim/net/secret_control.h"
#include "shim/session/contexts/context_home.h"
#include "shim/session/contexts/context_layer.h"
#include "shim/session/contexts/context_spare.h"
#include "shim/session/contexts/contexts.h"
#include "shim/session/contexts/contexts_internal.h"
#include "shim/session/contexts/ctx_helper.h"
#include "shim/session/egress/context_egress_file.h"
#include "shim/session/egress/network.h"
#include "shim/session/egress/relay_cgroup.h"
#include "shim/session/egress/secrets.h"
#include "shim/session/store/assembly.h"
#include "shim/session/store/audit.h"
#include "shim/session/store/host.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {
namespace json = boost::json;
using namespace contexts_internal;
namespace {

// The other contexts' secret declarations (no values), for a new relay's guard.
std::vector<std::vector<net::SecretRuleSpec>> OtherContextSecrets(const std::filesystem::path& session_dir,
                                                                  const std::filesystem::path& cdir) {
  std::vector<std::vector<net::SecretRuleSpec>> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(ContextsDir(session_dir), ec)) {
    if (e.path() == cdir) continue;
    auto text = fs::ReadFile(ContextLayout(e.path()).secrets());
    if (!text) continue;
    if (auto rules = net::ParseSecretRules(*text); rules && !rules->empty()) out.push_back(std::move(*rules));
  }
  return out;
}

// A native context's own relay: the session's arguments, but a control socket of its own
// (the session's stays the session relay's).
std::vector<std::string> ContextRelayArgs(std::vector<std::string> args, const std::filesystem::path& cdir) {
  bool bound = false;
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--secrets-socket") args[i + 1] = ContextSecretSocket(cdir).string();
    // Bound to this context: its namespace is the only one that reaches this relay.
    if (args[i] == "--bound-context") args[i + 1] = cdir.filename().string(), bound = true;
  }
  if (!bound) args.insert(args.end(), {"--bound-context", cdir.filename().string()});
  return args;
}

// The context's --secret declarations, checked, with fresh placeholders and the context as owner.
Result<std::vector<net::SecretRuleSpec>> PlanContextSecrets(const std::filesystem::path& dir, const ContextOptions& o,
                                                            bool egress) {
  std::vector<net::SecretRuleSpec> out;
  if (o.secrets.empty() && o.secret_values.empty()) return out;
  if (!egress)
    return MakeError("--secret: a context's secrets need a proxy session (session create --network proxy) and a named context",
                     EINVAL);
  auto session_rules = fs::ReadFile(SecretPaths(dir).rules);
  if (!session_rules)
    return MakeError("--secret: the session was made without secrets; its relay has no CA or secret socket "
                     "(give session create at least one --secret)",
                     EINVAL);
  auto declared = TRY(net::ParseSecretRules(*session_rules));
  auto own = TRY(net::DomainRules::Make(o.allow_domains, o.deny_domains));
  for (const auto& sp : o.secrets) {
    std::string who = "secret " + sp.name;
    if (std::ranges::any_of(out, [&](const auto& r) { return r.name == sp.name; })) return MakeError(who + " is declared twice", EINVAL);
    if (std::ranges::any_of(declared, [&](const auto& r) { return r.name == sp.name; }))
      return MakeError(who + " is also a secret of the session", EEXIST);
    if (o.env.contains(sp.name)) return MakeError(who + " is also given with --env", EINVAL);
    if (sp.hosts.empty()) return MakeError(who + ": no hosts", EINVAL);
    if (!sp.header.empty()) TRY_CTX(bundle::CheckHeaderTemplate(sp.header), who);
    TRY_CTX(net::CheckSecretScope(RuleSpec(sp, "", o.name)), who);
    for (const auto& h : sp.hosts) {
      TRY_CTX(net::CheckSecretHost(h), who);
      auto rule = TRY(net::ParseDomainRule(h));
      if (!o.allow_domains.empty() && !rule.subdomains && !own.Decide(rule.host, rule.port ? rule.port : 443).allowed)
        return MakeError(who + ": host \"" + h + "\" can never match: the context's rules do not allow it", EINVAL);
    }
    if (!o.secret_values.contains(sp.name))
      return MakeError(who + " has no value: give --secret-file, --secret-fd or --secret-env " + sp.name + "=...", EINVAL);
    out.push_back(RuleSpec(sp, NewPlaceholder(), o.name));
  }
  for (const auto& [name, v] : o.secret_values)
    if (std::ranges::none_of(out, [&](const auto& r) { return r.name == name; }))
      return MakeError("unknown secret " + name + " (declare it with --secret " + name + ":host=...)", EINVAL);
  return out;
}

json::array Strings(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& s : v) a.emplace_back(s);
  return a;
}

}  // namespace

// What a context create decided, and what its steps hand on.
struct Contexts::CreatePlan {
  Contexts& self;
  const SessionRecord& s;
  const ContextOptions& o;
  std::filesystem::path dir, cdir;
  ContextPlacement at;
  bool own_netns = false, egress = false, paths_entry = false;
  std::string token, path_key;
  std::map<std::string, std::string> proxy_env;
  json::object session_spec, spec, container_spec;
  std::vector<net::SecretRuleSpec> secret_rules;
  std::filesystem::path secret_socket;
  std::optional<Spare> spare;
  ContextRecord rec;
  std::optional<SessionJournal> journal;
  step::SessionContext undo;

  static const std::vector<AssemblyStep<CreatePlan>>& Steps();
  static Status Place(CreatePlan& c);
  static Status Spec(CreatePlan& c);
  static Status TakeSpare(CreatePlan& c);
  static Status Journal(CreatePlan& c);
  static Status EgressIdentity(CreatePlan& c);
  static Status Directory(CreatePlan& c);
  static Status RootLayer(CreatePlan& c);
  static Status OwnNetwork(CreatePlan& c);
  static Status Secrets(CreatePlan& c);
  static Status WriteSpec(CreatePlan& c);
  static Status Container(CreatePlan& c);
  static Status ChargeRelayToContext(CreatePlan& c);
  static Status HomeOwner(CreatePlan& c);
  static Status Commit(CreatePlan& c);
};

const std::vector<AssemblyStep<Contexts::CreatePlan>>& Contexts::CreatePlan::Steps() {
  static const std::vector<AssemblyStep<CreatePlan>> steps = {
      {"place", Place},                  // its network, egress identity, broker and home: decided
      {"spec", Spec},                    // its spec and its secrets' placeholders
      {"spare", TakeSpare},              // gVisor: a running spare taken, else a cold container
      {"journal", Journal},              // one step::SessionContext: the undo of all below
      {"egress-identity", EgressIdentity},  // its entry in the relay's contexts file
      {"directory", Directory},          // the spare's renamed, or bundle/, home/, path key
      {"root-layer", RootLayer},         // native: a writable layer of its own
      {"own-network", OwnNetwork},       // native proxy: a netns and a relay of its own
      {"secrets", Secrets},              // declared and sent to its relay; guards on the others
      {"write-spec", WriteSpec},         // bundle/config.json
      {"container", Container},          // cold: its container run
      {"charge-relay", ChargeRelayToContext},  // its own relay charged to its cgroups
      {"home-owner", HomeOwner},         // its home its user's
      {"commit", Commit},                // context.json: the context exists
  };
  return steps;
}

Result<ContextRecord> Contexts::CreateLocked(const SessionRecord& s, const ContextOptions& o) {
  CreatePlan c{.self = *this, .s = s, .o = o};
  bool done = false;
  ScopeExit rollback([&] {
    if (done || !c.journal) return;
    if (auto u = UndoContext(containers_, c.undo, sys_); !u) log::Warn("context " + o.name + ": rollback: " + u.error().msg);
  });
  TRY(Assemble<CreatePlan>(CreatePlan::Steps(), c, create_trace_));
  done = true;
  std::vector<std::string> secret_names;
  for (const auto& r : c.secret_rules) secret_names.push_back(r.name);
  auto& rec = c.rec;
  (void)AppendAudit(s.audit, "context-create",
                    {{"session", s.id}, {"context", o.name}, {"container", rec.container_id}, {"spare", c.spare.has_value()}, {"trusted", o.trusted},
                     {"env_keys", Strings(rec.env_keys)}, {"allow_domains", Strings(rec.allow_domains)},
                     {"deny_domains", Strings(rec.deny_domains)}, {"secrets", Strings(secret_names)}});
  rec.status = "running";
  return rec;
}

Status Contexts::CreatePlan::Place(CreatePlan& c) {
  const auto& s = c.s;
  const auto& o = c.o;
  c.dir = RootLayout(c.self.opts_.root).session(s.id);
  c.cdir = ContextsDir(c.dir) / o.name;
  if (fs::Exists(RecordFile(c.cdir))) return MakeError("context " + o.name + " already exists in session " + s.id, EEXIST);
  c.at = ContextPlacement{.in_session_sandbox = InSandbox(s), .session_container = s.container_id};
  // Native, proxy mode: a network namespace of the context's own with a relay of its own
  // (the session's arguments: same rules, same contexts file), so its loopback ports are its
  // own. (gVisor: the broker makes one inside the sandbox, below.)
  c.own_netns = !InSandbox(s) && s.network == NetworkMode::kProxy && !s.relay_args.empty();
  if (c.own_netns) c.at.netns_path = NetworkPaths(c.cdir).netns.string();
  if (!InSandbox(s) && s.network == NetworkMode::kNone) {
    auto sandbox = TRY(c.self.containers_.State(s.container_id));
    c.at.netns_path = "/proc/" + std::to_string(sandbox.init.pid) + "/ns/net";
  }
  // Egress identity: a named context in a proxy session reaches the relay with credentials
  // of its own, and the relay applies its rules (net/context_egress.h). The default context
  // sends none and gets the session's. Sessions made before contexts have no contexts file.
  c.egress = o.name != kDefaultContext && s.network == NetworkMode::kProxy &&
             std::find(s.relay_args.begin(), s.relay_args.end(), "--contexts-file") != s.relay_args.end();
  if ((!o.allow_domains.empty() || !o.deny_domains.empty()) && !c.egress)
    return MakeError("--allow-domain/--deny-domain: the session has no egress proxy (session create --network proxy)",
                     EINVAL);
  TRY_CTX(net::DomainRules::Make(o.allow_domains, o.deny_domains), "context " + o.name);
  c.session_spec = TRY(bundle::LoadSpec(c.dir / layout::kBundle)).doc;
  TRY_CTX(PlaceBroker(c.dir, s, c.session_spec, c.cdir, c.at), "context " + o.name);
  TRY_CTX(PlaceIdentity(c.dir, c.cdir, c.at), "context " + o.name);
  return Ok();
}

Status Contexts::CreatePlan::Spec(CreatePlan& c) {
  const auto& s = c.s;
  bool broker = !c.at.broker_path.empty();
  if (s.network == NetworkMode::kProxy) {
    // A context reaches the relay on its own loopback where it has a namespace of its own
    // (native: a relay of its own; gVisor: the broker's forward).
    std::string host = c.own_netns || broker ? "127.0.0.1" : RelayHost(c.dir);
    if (c.egress) c.token = TRY(NewContextToken());
    c.proxy_env = ContextProxyEnv(c.egress ? c.o.name : "", c.token, host, bundle::kRelayPort);
  }
  // Its secrets: checked, each given a placeholder (into its environment), declared to the
  // relay that serves it, scoped to its egress identity, below.
  c.secret_rules = TRY(PlanContextSecrets(c.dir, c.o, c.egress));
  for (const auto& r : c.secret_rules) c.proxy_env[r.name] = r.placeholder;
  c.secret_socket = c.own_netns ? ContextSecretSocket(c.cdir) : SecretPaths(c.dir).socket;
  // The context's own: its execs' defaults (its bundle). gVisor's container is made bound to
  // no context (ContextContainerSpec), as a spare is.
  c.spec = TRY(ContextSpec(c.session_spec, c.o, c.at, c.proxy_env));
  c.container_spec = InSandbox(s) ? TRY(ContextContainerSpec(c.session_spec, c.at)) : c.spec;
  return Ok();
}

// gVisor: a spare that runs already, taken here (after every check: a refused create must
// not cost it) and journaled with the context below; else the container is made cold.
// "default" too: it is a context container like any other (a session that asked for
// spares has one ready for it at its first create).
Status Contexts::CreatePlan::TakeSpare(CreatePlan& c) {
  const auto& o = c.o;
  c.spare = InSandbox(c.s) ? TakeReadySpare(c.self.containers_, c.dir) : std::nullopt;
  // Its path key: the spare's own (made with it), or a new one for a cold container. The
  // relay knows it from the contexts file: the default context too (a path, no token).
  if (!c.at.path_file.empty()) {
    if (c.spare) {
      auto text = fs::ReadFile(PathKeyFile(c.spare->dir));
      if (text) c.path_key = text->substr(0, text->find('\n'));  // (a spare from before path keys: none)
    } else {
      c.path_key = TRY(NewContextToken());
    }
  }
  c.paths_entry = !c.path_key.empty() && !c.egress;  // (a named context's entry carries it)
  // The context's spec says what its execs run. A spare made by an older sandshim may have no
  // exec client bound (its execs then use the helper's own `run`) and no home or trusted tools
  // (its context keeps the session's HOME; a trusted one is refused: gc removes the spare).
  if (c.spare) {
    auto made = bundle::LoadSpec(c.spare->dir / layout::kBundle);
    if (!made || !BindsTrustedTools(made->doc)) {
      if (o.trusted)
        return MakeError("context " + o.name + ": the session's spare predates trusted contexts (create it again)", EAGAIN);
      c.at.home_path.clear();
      c.at.trusted_path.clear();
      c.spec = TRY(ContextSpec(c.session_spec, o, c.at, c.proxy_env));
    }
    if (BindsRunClient(c.spec) && (!made || !BindsRunClient(made->doc))) UnbindRunClient(c.spec);
  }
  c.rec = ContextRecord{.name = o.name,
                        .container_id = c.spare ? c.spare->container_id : ContextContainerId(c.s.id, o.name),
                        .created = log::NowRfc3339()};
  SetUserFrom(c.spec, c.rec);
  return Ok();
}

// Not fsync'd, nor are the context's files below: what they name dies with the kernel (its
// container, the relay's view) or lies in the session's directory, which the session's
// teardown removes whole. A sandshim killed midway is undone all the same (rename is
// atomic); an fsync on a loaded host's /run costs 1-50 ms, the claim's budget is 50.
Status Contexts::CreatePlan::Journal(CreatePlan& c) {
  auto journal = TRY(SessionJournal::Load(c.dir / layout::kJournal, /*durable=*/false));
  c.undo = step::SessionContext{.id = c.rec.container_id, .dir = c.cdir.string(), .name = c.o.name};
  if (c.egress || c.paths_entry) c.undo.egress = NetworkPaths(c.dir).contexts.string();
  if (c.own_netns) c.undo.network = true;
  if (!c.secret_rules.empty()) c.undo.secrets = SecretPaths(c.dir).socket.string();
  if (c.spare) c.undo.spare = c.spare->dir.string();  // until it is renamed to cdir
  TRY(journal.Append(c.undo));
  c.journal.emplace(std::move(journal));  // from here the rollback undoes it
  fault::Point("session.context.after-journal");
  return Ok();
}

Status Contexts::CreatePlan::EgressIdentity(CreatePlan& c) {
  if (!c.egress && !c.paths_entry) return Ok();
  const auto& o = c.o;
  TRY_CTX(AddContextEgress(NetworkPaths(c.dir).contexts, o.name, c.token, o.allow_domains, o.deny_domains, c.path_key),
          "context " + o.name + ": egress identity");
  return Ok();
}

Status Contexts::CreatePlan::Directory(CreatePlan& c) {
  if (c.spare) {
    TRY_CTX(AdoptSpare(c.self.opts_, *c.spare, c.cdir), "context " + c.o.name + ": spare " + c.spare->container_id);
    fault::Point("session.context.claim.after-adopt");
    return Ok();
  }
  TRY(fs::MkdirAll(c.cdir / layout::kBundle, layout::kBundle.mode));
  TRY(MakeHomeDir(c.cdir, c.self.sys_));
  if (!InSandbox(c.s)) TRY(OpenToSessionIds(c.cdir, c.spec, c.self.sys_));
  if (!c.path_key.empty()) TRY(fs::WriteFileAtomic(PathKeyFile(c.cdir), c.path_key + "\n", 0600, /*sync=*/false));
  return Ok();
}

Status Contexts::CreatePlan::RootLayer(CreatePlan& c) {
  if (InSandbox(c.s)) return Ok();  // native: a writable root layer of its own (context_layer.h)
  TRY_CTX(MountContextLayer(c.s, c.dir, c.cdir, c.spec, c.self.sys_), "context " + c.o.name + ": its layer");
  c.container_spec = c.spec;
  return Ok();
}

Status Contexts::CreatePlan::OwnNetwork(CreatePlan& c) {
  if (!c.own_netns) return Ok();
  TRY_CTX(net::CreateNetns(NetworkPaths(c.cdir).netns), "context " + c.o.name + ": network namespace");
  TRY_CTX(StartSessionRelay(NetworkPaths(c.cdir), ContextRelayArgs(c.s.relay_args, c.cdir)),
          "context " + c.o.name + ": egress relay");
  return Ok();
}

Status Contexts::CreatePlan::Secrets(CreatePlan& c) {
  const auto& o = c.o;
  if (!c.secret_rules.empty()) {
    TRY(fs::WriteFileAtomic(c.cdir / layout::kContextSecrets, net::FormatSecretRules(c.secret_rules), 0600, /*sync=*/false));
    TRY_CTX(net::DeclareSecrets(c.secret_socket, c.secret_rules), "context " + o.name + ": secrets");
    for (const auto& r : c.secret_rules)
      TRY_CTX(net::SendSecret(c.secret_socket, net::QualifiedName(o.name, r.name), o.secret_values.at(r.name).View()),
              "context " + o.name + ": secret " + r.name);
    // The exfiltration guard on every other relay of the session (the session's, other native
    // contexts' own): the placeholders declared there without a value, so any other context
    // carrying one is refused.
    for (const auto& sock : OtherRelaySockets(c.dir, c.cdir))
      if (sock != c.secret_socket)  // (gVisor: the session's relay is the context's: declared above, with values)
        TRY_CTX(net::DeclareSecrets(sock, c.secret_rules), "context " + o.name + ": secrets guard");
  }
  if (c.own_netns)  // and on its own relay, the other contexts' placeholders
    for (const auto& other : OtherContextSecrets(c.dir, c.cdir))
      TRY_CTX(net::DeclareSecrets(c.secret_socket, other), "context " + o.name + ": secrets guard");
  return Ok();
}

Status Contexts::CreatePlan::WriteSpec(CreatePlan& c) {
  return fs::WriteFileAtomic(c.cdir / layout::kBundleConfig, json::serialize(c.spec), 0600, /*sync=*/false);  // --env values
}

Status Contexts::CreatePlan::Container(CreatePlan& c) {
  if (c.spare) return Ok();
  proc::DetachedStdio detached;  // the container outlives this call: none of our stdio
  runtime::CreateRequest req;
  req.id = c.rec.container_id;
  req.bundle = c.cdir / layout::kBundle;
  req.spec = TRY(bundle::SpecFromJson(std::move(c.container_spec)));
  req.null_stdio = true;
  req.backend = c.s.backend;
  TRY_CTX(c.self.containers_.Run(std::move(req), /*detach=*/true), "context " + c.o.name);
  return Ok();
}

// M12, as the session's relay: charged to the context's own cgroups (a "relay" child).
Status Contexts::CreatePlan::ChargeRelayToContext(CreatePlan& c) {
  if (!c.own_netns) return Ok();
  auto relay = TRY(net::ParsePidFile(TRY(fs::ReadFile(NetworkPaths(c.cdir).pid_file))));
  auto init = TRY(c.self.containers_.State(c.rec.container_id));
  TRY_CTX(ChargeRelay(relay.process.pid, init.init.pid, c.cdir / layout::kRelayCgroups), "context " + c.o.name + ": relay");
  return Ok();
}

// Its home is its user's from here (the default context keeps the session's HOME).
Status Contexts::CreatePlan::HomeOwner(CreatePlan& c) {
  if (c.o.name == kDefaultContext || c.at.home_path.empty()) return Ok();
  TRY_CTX(OwnHome(c.cdir, c.spec, c.rec.uid, c.rec.gid, c.self.sys_), "context " + c.o.name + ": home");
  return Ok();
}

Status Contexts::CreatePlan::Commit(CreatePlan& c) {
  fault::Point("session.context.after-container");
  auto& rec = c.rec;
  for (const auto& [k, v] : c.o.env) rec.env_keys.push_back(k);
  rec.trusted = c.o.trusted;
  rec.allow_domains = c.o.allow_domains;
  rec.deny_domains = c.o.deny_domains;
  return fs::WriteFileAtomic(RecordFile(c.cdir), json::serialize(ContextToJson(rec)), 0600, /*sync=*/false);
}

}  // namespace sandshim::session
