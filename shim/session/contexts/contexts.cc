#include "shim/session/contexts/contexts.h"

#include <unistd.h>

#include <algorithm>

#include "bundle/spec.h"
#include "shim/core/fault.h"
#include "shim/core/fs.h"
#include "shim/core/ids.h"
#include "shim/core/log.h"
#include "shim/core/proc.h"
#include "shim/core/remove_tree.h"
#include "shim/core/scope_exit.h"
#include "shim/net/domain_rules.h"
#include "shim/net/netns.h"
#include "shim/net/relay.h"
#include "shim/net/secret_book.h"
#include "shim/net/secret_control.h"
#include "shim/session/store/audit.h"
#include "shim/session/egress/context_egress_file.h"
#include "shim/session/contexts/context_layer.h"
#include "shim/session/contexts/context_home.h"
#include "bundle/process.h"
#include "shim/session/contexts/context_spare.h"
#include "shim/session/contexts/ctx_helper.h"
#include "shim/session/egress/network.h"
#include "shim/session/egress/relay_cgroup.h"
#include "shim/session/egress/secrets.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {
namespace json = boost::json;
namespace {

std::filesystem::path ContextsDir(const std::filesystem::path& session_dir) { return SessionLayout(session_dir).contexts(); }
std::filesystem::path RecordFile(const std::filesystem::path& context_dir) { return ContextLayout(context_dir).record(); }
std::filesystem::path ContextSecretSocket(const std::filesystem::path& context_dir) { return ContextLayout(context_dir).socket(); }

Result<ContextRecord> ReadContext(const std::filesystem::path& context_dir) {
  auto text = TRY(fs::ReadFile(RecordFile(context_dir)));
  return ContextFromJson(TRY(bundle::ParseJson(text, RecordFile(context_dir).string())));
}

// The user a spec's process runs as, into the record.
void SetUserFrom(const json::object& spec, ContextRecord& rec) {
  if (auto u = BrokerExecUser(spec); !u.empty()) {  // the init is root; its execs are not
    if (auto parsed = bundle::ParseUser(u)) {
      rec.uid = parsed->first;
      rec.gid = parsed->second.value_or(parsed->first);
    }
    return;
  }
  const auto* p = spec.if_contains("process");
  const auto* u = p && p->is_object() ? p->as_object().if_contains("user") : nullptr;
  if (!u || !u->is_object()) return;
  boost::system::error_code ec;
  if (const auto* v = u->as_object().if_contains("uid")) rec.uid = v->to_number<uint64_t>(ec);
  if (const auto* v = u->as_object().if_contains("gid")) rec.gid = v->to_number<uint64_t>(ec);
}

// What a context's journal entry holds, for a context that has a record.
step::SessionContext UndoData(const std::filesystem::path& session_dir, const ContextRecord& r) {
  step::SessionContext d{.id = r.container_id,
                         .dir = (ContextsDir(session_dir) / r.name).string(),
                         .name = r.name,
                         .egress = NetworkPaths(session_dir).contexts.string()};
  // Undone only where it exists (idempotent): a context that has its own network.
  if (fs::Exists(NetworkPaths(ContextsDir(session_dir) / r.name).netns)) d.network = true;
  if (fs::Exists(ContextsDir(session_dir) / r.name / layout::kContextSecrets)) d.secrets = SecretPaths(session_dir).socket.string();
  return d;
}

// The control sockets of the session's relays but the context's own: the session's and
// those of other contexts with a relay of their own (native, proxy mode).
std::vector<std::filesystem::path> OtherRelaySockets(const std::filesystem::path& session_dir,
                                                     const std::filesystem::path& cdir) {
  std::vector<std::filesystem::path> out;
  if (fs::Exists(SecretPaths(session_dir).socket)) out.push_back(SecretPaths(session_dir).socket);
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(ContextsDir(session_dir), ec))
    if (e.path() != cdir && fs::Exists(ContextSecretSocket(e.path()))) out.push_back(ContextSecretSocket(e.path()));
  return out;
}

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

std::string RelayHost(const std::filesystem::path& session_dir) {
  // Where the relay answers the sandbox: the session's link address, or its loopback
  // (sessions from before the relay link).
  return !net::IsNetns(NetworkPaths(session_dir).relay_netns) ? "127.0.0.1" : bundle::kRelayAddress;
}

std::vector<std::string> ContextPathArgs(const std::string& backend) {
  if (runtime::TraitsOf(backend).contexts_in_sandbox) return {"--context-paths"};
  return {"--bound-context", std::string(kDefaultContext)};
}

std::filesystem::path PathKeyFile(const std::filesystem::path& container_dir) { return container_dir / layout::kContextPathKey; }

Status PlaceBroker(const std::filesystem::path& session_dir, const SessionRecord& s, const json::object& session_spec,
                   const std::filesystem::path& container_dir, ContextPlacement& at) {
  // gVisor on netstack: a network namespace of the context's own, made and held by its init
  // (the broker), which starts its execs and carries its egress to the relay (ctx-helper/).
  // The same for a cold context and a spare: nothing here names a context.
  if (!InSandbox(s) || !BrokerNetwork(session_spec)) return Ok();
  at.broker_path = TRY(InstallCtxHelper(session_dir)).string();
  at.run_path = TRY(InstallCtxRun(session_dir)).string();
  if (s.network == NetworkMode::kProxy) {
    auto port = std::to_string(bundle::kRelayPort);
    at.forward = port + "=" + RelayHost(session_dir) + ":" + port;
    // (Its file is written with the container; sessions from before path lines have none.)
    if (std::ranges::find(s.relay_args, "--context-paths") != s.relay_args.end())
      at.path_file = PathKeyFile(container_dir).string();
  }
  return Ok();
}

Contexts::Contexts(runtime::Options o, SessionLookup& sessions) : opts_(o), sessions_(sessions), containers_(std::move(o)) {}

Result<ContextRecord> Contexts::Create(const std::string& session_ref, const ContextOptions& o) {
  TRY(ValidateContextName(o.name));
  if (o.name == kDefaultContext) return MakeError("context \"default\" is the session's own; it is made with the first context", EEXIST);
  auto s = TRY(sessions_.Get(session_ref));
  auto made = CreateInSession(s.id, o);
  // gVisor: the next create finds a spare ready (context_spare.h), made in the background
  // after the session lock is released; the refill does nothing if one is ready or coming.
  if (made && InSandbox(s)) {
    std::vector<std::string> argv = refill_argv_;
    if (!argv.empty()) argv.push_back(s.id);
    (void)StartRefill(argv);  // its failure is logged; the next create goes cold
  }
  return made;
}

Status Contexts::WarmSpares(const std::string& session_ref, int depth) {
  auto s = TRY(sessions_.Get(session_ref));
  if (!InSandbox(s)) return Ok();  // native contexts have no spares (~100 ms cold)
  runtime::StateStore store(RootLayout(opts_.root).sessions());
  {
    auto lock = TRY(store.Lock(s.id));  // as PrepareSpares at a first create: delete waits for the refill
    TRY(SetSpareDepth(store.Dir(s.id), depth));
  }
  std::vector<std::string> argv = refill_argv_;
  if (argv.empty()) return MakeError("no refill command", EINVAL);
  argv.push_back(s.id);
  return StartRefill(argv, /*wait=*/true);
}

Result<ContextRecord> Contexts::CreateInSession(const std::string& id, const ContextOptions& o) {
  runtime::StateStore store(RootLayout(opts_.root).sessions());
  auto lock = TRY(store.Lock(id));
  auto s = TRY(sessions_.Get(id));  // as it is under the lock
  if (s.status != "running") return MakeError("session " + s.id + " is " + s.status + ": contexts need it running", EINVAL);
  // gVisor: the session's container is the namespace parent of its contexts' (it sees their
  // processes), so plain execs move to a context of their own before any other exists.
  auto dir = store.Dir(s.id);
  if (InSandbox(s) && !fs::Exists(RecordFile(ContextsDir(dir) / kDefaultContext))) {
    TRY(RequireIdleRoot(s));
    TRY_CTX(CreateLocked(s, ContextOptions{.name = kDefaultContext}), "default context");
  }
  if (InSandbox(s)) TRY(PrepareSpares(dir));  // before any refill: delete waits for one
  return CreateLocked(s, o);
}

// gVisor: processes that plain execs left running in the session's own container would see
// and signal every context's (theirs is the parent PID namespace). The first context is
// refused while there are any: nothing but the idle init (a shell and its sleep) may run.
Status Contexts::RequireIdleRoot(const SessionRecord& s) {
  size_t processes = TRY_CTX(containers_.ProcessCount(s.container_id), "processes of session " + s.id);
  if (processes > 2)
    return MakeError("session " + s.id + " has " + std::to_string(processes - 2) +
                         " processes left by plain execs; they would see every context's: end them before the first "
                         "context",
                     EBUSY);
  return Ok();
}

Result<ContextRecord> Contexts::CreateLocked(const SessionRecord& s, const ContextOptions& o) {
  auto dir = RootLayout(opts_.root).session(s.id);
  auto cdir = ContextsDir(dir) / o.name;
  if (fs::Exists(RecordFile(cdir))) return MakeError("context " + o.name + " already exists in session " + s.id, EEXIST);
  ContextPlacement at{.in_session_sandbox = InSandbox(s), .session_container = s.container_id};
  // Native, proxy mode: a network namespace of the context's own with a relay of its own
  // (the session's arguments: same rules, same contexts file), so its loopback ports are its
  // own. (gVisor: the broker makes one inside the sandbox, below.)
  bool own_netns = !InSandbox(s) && s.network == NetworkMode::kProxy && !s.relay_args.empty();
  if (own_netns) at.netns_path = NetworkPaths(cdir).netns.string();
  if (!InSandbox(s) && s.network == NetworkMode::kNone) {
    auto sandbox = TRY(containers_.State(s.container_id));
    at.netns_path = "/proc/" + std::to_string(sandbox.init.pid) + "/ns/net";
  }
  // Egress identity: a named context in a proxy session reaches the relay with credentials
  // of its own, and the relay applies its rules (net/context_egress.h). The default context
  // sends none and gets the session's. Sessions made before contexts have no contexts file.
  bool egress = o.name != kDefaultContext && s.network == NetworkMode::kProxy &&
                std::find(s.relay_args.begin(), s.relay_args.end(), "--contexts-file") != s.relay_args.end();
  if ((!o.allow_domains.empty() || !o.deny_domains.empty()) && !egress)
    return MakeError("--allow-domain/--deny-domain: the session has no egress proxy (session create --network proxy)",
                     EINVAL);
  TRY_CTX(net::DomainRules::Make(o.allow_domains, o.deny_domains), "context " + o.name);
  std::string token;
  std::map<std::string, std::string> proxy_env;
  auto session_spec = TRY(bundle::LoadSpec(dir / layout::kBundle)).doc;
  TRY_CTX(PlaceBroker(dir, s, session_spec, cdir, at), "context " + o.name);
  TRY_CTX(PlaceIdentity(dir, cdir, at), "context " + o.name);
  bool broker = !at.broker_path.empty();
  if (s.network == NetworkMode::kProxy) {
    // A context reaches the relay on its own loopback where it has a namespace of its own
    // (native: a relay of its own; gVisor: the broker's forward).
    std::string host = own_netns || broker ? "127.0.0.1" : RelayHost(dir);
    if (egress) token = TRY(NewContextToken());
    proxy_env = ContextProxyEnv(egress ? o.name : "", token, host, bundle::kRelayPort);
  }
  // Its secrets: checked, each given a placeholder (into its environment), declared to the
  // relay that serves it, scoped to its egress identity, below.
  auto secret_rules = TRY(PlanContextSecrets(dir, o, egress));
  for (const auto& r : secret_rules) proxy_env[r.name] = r.placeholder;
  std::filesystem::path secret_socket = own_netns ? ContextSecretSocket(cdir) : SecretPaths(dir).socket;
  // The context's own: its execs' defaults (its bundle). gVisor's container is made bound to
  // no context (ContextContainerSpec), as a spare is.
  auto spec = TRY(ContextSpec(session_spec, o, at, proxy_env));
  auto container_spec = InSandbox(s) ? TRY(ContextContainerSpec(session_spec, at)) : spec;

  // gVisor: a spare that runs already, taken here (after every check: a refused create must
  // not cost it) and journaled with the context below; else the container is made cold.
  // "default" too: it is a context container like any other (a session that asked for
  // spares has one ready for it at its first create).
  auto spare = InSandbox(s) ? TakeReadySpare(containers_, dir) : std::nullopt;
  // Its path key: the spare's own (made with it), or a new one for a cold container. The
  // relay knows it from the contexts file: the default context too (a path, no token).
  std::string path_key;
  if (!at.path_file.empty()) {
    if (spare) {
      auto text = fs::ReadFile(PathKeyFile(spare->dir));
      if (text) path_key = text->substr(0, text->find('\n'));  // (a spare from before path keys: none)
    } else {
      path_key = TRY(NewContextToken());
    }
  }
  bool paths_entry = !path_key.empty() && !egress;  // (a named context's entry carries it)
  // The context's spec says what its execs run. A spare made by an older sandshim may have no
  // exec client bound (its execs then use the helper's own `run`) and no home or trusted tools
  // (its context keeps the session's HOME; a trusted one is refused: gc removes the spare).
  if (spare) {
    auto made = bundle::LoadSpec(spare->dir / layout::kBundle);
    if (!made || !BindsTrustedTools(made->doc)) {
      if (o.trusted)
        return MakeError("context " + o.name + ": the session's spare predates trusted contexts (create it again)", EAGAIN);
      at.home_path.clear();
      at.trusted_path.clear();
      spec = TRY(ContextSpec(session_spec, o, at, proxy_env));
    }
    if (BindsRunClient(spec) && (!made || !BindsRunClient(made->doc))) UnbindRunClient(spec);
  }
  ContextRecord rec{.name = o.name,
                    .container_id = spare ? spare->container_id : ContextContainerId(s.id, o.name),
                    .created = log::NowRfc3339()};
  SetUserFrom(spec, rec);
  // Not fsync'd, nor are the context's files below: what they name dies with the kernel (its
  // container, the relay's view) or lies in the session's directory, which the session's
  // teardown removes whole. A sandshim killed midway is undone all the same (rename is
  // atomic); an fsync on a loaded host's /run costs 1-50 ms, the claim's budget is 50.
  auto journal = TRY(SessionJournal::Load(dir / layout::kJournal, /*durable=*/false));
  step::SessionContext undo{.id = rec.container_id, .dir = cdir.string(), .name = o.name};
  if (egress || paths_entry) undo.egress = NetworkPaths(dir).contexts.string();
  if (own_netns) undo.network = true;
  if (!secret_rules.empty()) undo.secrets = SecretPaths(dir).socket.string();
  if (spare) undo.spare = spare->dir.string();  // until it is renamed to cdir
  TRY(journal.Append(undo));
  bool done = false;
  ScopeExit rollback([&] {
    if (done) return;
    if (auto u = UndoContext(containers_, undo); !u) log::Warn("context " + o.name + ": rollback: " + u.error().msg);
  });
  fault::Point("session.context.after-journal");
  if (egress || paths_entry)
    TRY_CTX(AddContextEgress(NetworkPaths(dir).contexts, o.name, token, o.allow_domains, o.deny_domains, path_key),
            "context " + o.name + ": egress identity");
  if (spare) {
    TRY_CTX(AdoptSpare(opts_, *spare, cdir), "context " + o.name + ": spare " + spare->container_id);
    fault::Point("session.context.claim.after-adopt");
  } else {
    TRY(fs::MkdirAll(cdir / layout::kBundle, layout::kBundle.mode));
    TRY(MakeHomeDir(cdir));
    if (!InSandbox(s)) TRY(OpenToSessionIds(cdir, spec));
    if (!path_key.empty()) TRY(fs::WriteFileAtomic(PathKeyFile(cdir), path_key + "\n", 0600, /*sync=*/false));
  }
  if (!InSandbox(s)) {  // native: a writable root layer of its own (context_layer.h)
    TRY_CTX(MountContextLayer(s, dir, cdir, spec), "context " + o.name + ": its layer");
    container_spec = spec;
  }
  if (own_netns) {
    TRY_CTX(net::CreateNetns(NetworkPaths(cdir).netns), "context " + o.name + ": network namespace");
    TRY_CTX(StartSessionRelay(NetworkPaths(cdir), ContextRelayArgs(s.relay_args, cdir)),
            "context " + o.name + ": egress relay");
  }
  if (!secret_rules.empty()) {
    TRY(fs::WriteFileAtomic(cdir / layout::kContextSecrets, net::FormatSecretRules(secret_rules), 0600, /*sync=*/false));
    TRY_CTX(net::DeclareSecrets(secret_socket, secret_rules), "context " + o.name + ": secrets");
    for (const auto& r : secret_rules)
      TRY_CTX(net::SendSecret(secret_socket, net::QualifiedName(o.name, r.name), o.secret_values.at(r.name).View()),
              "context " + o.name + ": secret " + r.name);
    // The exfiltration guard on every other relay of the session (the session's, other native
    // contexts' own): the placeholders declared there without a value, so any other context
    // carrying one is refused.
    for (const auto& sock : OtherRelaySockets(dir, cdir))
      if (sock != secret_socket)  // (gVisor: the session's relay is the context's: declared above, with values)
        TRY_CTX(net::DeclareSecrets(sock, secret_rules), "context " + o.name + ": secrets guard");
  }
  if (own_netns)  // and on its own relay, the other contexts' placeholders
    for (const auto& other : OtherContextSecrets(dir, cdir))
      TRY_CTX(net::DeclareSecrets(secret_socket, other), "context " + o.name + ": secrets guard");
  TRY(fs::WriteFileAtomic(cdir / layout::kBundleConfig, json::serialize(spec), 0600, /*sync=*/false));  // --env values
  if (!spare) {
    proc::DetachedStdio detached;  // the container outlives this call: none of our stdio
    runtime::CreateRequest req;
    req.id = rec.container_id;
    req.bundle = cdir / layout::kBundle;
    req.spec = TRY(bundle::SpecFromJson(std::move(container_spec)));
    req.null_stdio = true;
    req.backend = s.backend;
    TRY_CTX(containers_.Run(std::move(req), /*detach=*/true), "context " + o.name);
  }
  if (own_netns) {
    // M12, as the session's relay: charged to the context's own cgroups (a "relay" child).
    auto relay = TRY(net::ParsePidFile(TRY(fs::ReadFile(NetworkPaths(cdir).pid_file))));
    auto init = TRY(containers_.State(rec.container_id));
    TRY_CTX(ChargeRelay(relay.process.pid, init.init.pid, cdir / layout::kRelayCgroups), "context " + o.name + ": relay");
  }
  // Its home is its user's from here (the default context keeps the session's HOME).
  if (o.name != kDefaultContext && !at.home_path.empty())
    TRY_CTX(OwnHome(cdir, spec, rec.uid, rec.gid), "context " + o.name + ": home");
  fault::Point("session.context.after-container");
  for (const auto& [k, v] : o.env) rec.env_keys.push_back(k);
  rec.trusted = o.trusted;
  rec.allow_domains = o.allow_domains;
  rec.deny_domains = o.deny_domains;
  TRY(fs::WriteFileAtomic(RecordFile(cdir), json::serialize(ContextToJson(rec)), 0600, /*sync=*/false));
  done = true;
  std::vector<std::string> secret_names;
  for (const auto& r : secret_rules) secret_names.push_back(r.name);
  (void)AppendAudit(s.audit, "context-create",
                    {{"session", s.id}, {"context", o.name}, {"container", rec.container_id}, {"spare", spare.has_value()}, {"trusted", o.trusted},
                     {"env_keys", Strings(rec.env_keys)}, {"allow_domains", Strings(rec.allow_domains)},
                     {"deny_domains", Strings(rec.deny_domains)}, {"secrets", Strings(secret_names)}});
  rec.status = "running";
  return rec;
}

Result<std::vector<ContextRecord>> Contexts::List(const std::string& session_ref) {
  auto s = TRY(sessions_.Get(session_ref));
  auto dir = RootLayout(opts_.root).session(s.id);
  std::vector<ContextRecord> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(ContextsDir(dir), ec)) {
    auto r = ReadContext(e.path());
    if (!r) continue;  // being made or removed: not a context yet (or any more)
    auto st = containers_.State(r->container_id);
    r->status = st ? std::string(runtime::StatusName(st->status)) : "gone";
    out.push_back(std::move(*r));
  }
  auto key = [](const ContextRecord& r) { return std::make_pair(r.name != kDefaultContext, r.name); };
  std::sort(out.begin(), out.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  if (out.empty() || out.front().name != kDefaultContext) {
    // No context of its own (no context yet, or native, whose session container is a
    // sibling of its contexts): the default context is the session's container.
    ContextRecord d{.name = kDefaultContext, .container_id = s.container_id, .created = s.created};
    d.status = s.status;
    if (auto spec = bundle::LoadSpec(dir / layout::kBundle)) SetUserFrom(spec->doc, d);
    out.insert(out.begin(), std::move(d));
  }
  return out;
}

Status Contexts::Remove(const std::string& session_ref, const std::string& name) {
  TRY(ValidateContextName(name));
  if (name == kDefaultContext) return MakeError("the default context goes with the session (session delete)", EINVAL);
  auto s = TRY(sessions_.Get(session_ref));
  runtime::StateStore store(RootLayout(opts_.root).sessions());
  auto lock = TRY(store.Lock(s.id));
  auto cdir = ContextsDir(store.Dir(s.id)) / name;
  auto rec = ReadContext(cdir);
  if (!rec) return MakeError("context " + name + " does not exist in session " + s.id, ENOENT);
  // The record goes first: a crash after it leaves a journaled context without a record,
  // which gc undoes.
  TRY(fs::RemoveTree(RecordFile(cdir)));
  fault::Point("session.context.rm.after-record");
  TRY(UndoContext(containers_, UndoData(store.Dir(s.id), *rec)));
  (void)AppendAudit(s.audit, "context-rm", {{"session", s.id}, {"context", name}});
  return Ok();
}

Result<std::string> Contexts::Ps(const std::string& session_ref, const std::string& name) {
  auto s = TRY(sessions_.Get(session_ref));
  auto target = TRY(ExecTargetFor(RootLayout(opts_.root).session(s.id), s, name));
  return containers_.PsTable(target.container_id);
}

Result<ExecTarget> ExecTargetFor(const std::filesystem::path& session_dir, const SessionRecord& s,
                                 const std::string& context) {
  const std::string& name = context.empty() ? std::string(kDefaultContext) : context;
  if (!context.empty()) TRY(ValidateContextName(name));
  auto cdir = ContextsDir(session_dir) / name;
  // The record names the container (a claimed spare's id is not derived from the name).
  if (auto rec = ReadContext(cdir)) return ExecTarget{rec->container_id, cdir / layout::kBundle};
  if (fs::Exists(RecordFile(cdir))) return MakeError("context " + name + ": its record is unreadable", EIO);
  if (name == kDefaultContext) return ExecTarget{s.container_id, session_dir / layout::kBundle};
  return MakeError("context " + name + " does not exist in session " + s.id, ENOENT);
}

Status UndoContext(runtime::Containers& containers, const step::SessionContext& data) {
  const auto& id = data.id;
  const auto& dir = data.dir;
  if (id.empty() || dir.empty()) return MakeError("session-context entry without id or dir", EINVAL);
  // Native, proxy mode: its relay stops and leaves the container's cgroups first (they
  // cannot be removed with a child in them), its namespace goes after the container.
  bool network = data.network;
  if (network) {
    TRY(StopSessionRelay(NetworkPaths(dir)));
    if (auto cg = DirLayout(dir).relay_cgroups(); fs::Exists(cg)) TRY(UnchargeRelay(cg));
  }
  // Its secrets leave the session's relay (best effort: a stopped relay holds nothing).
  // A relay that is not running holds nothing to forget: its failure is not an error.
  if (!data.secrets.empty()) {
    std::filesystem::path cdir(dir);
    auto session_dir = cdir.parent_path().parent_path();
    for (const auto& other : OtherRelaySockets(session_dir, cdir))
      (void)net::ForgetSecrets(other, data.name);
  }
  auto s = containers.Delete(id, /*force=*/true);
  if (!s && s.error().err_no != ENOENT) return s;
  TRY(UnmountContextLayer(dir));  // native: its own layer (before its directory goes)
  if (network) TRY(net::RemoveNetns(NetworkPaths(dir).netns));
  // Its credentials stop working before its directory goes.
  if (!data.egress.empty()) TRY(RemoveContextEgress(data.egress, data.name));
  // A claimed spare not yet renamed to the context's directory (context_spare.h).
  if (!data.spare.empty() && fs::Exists(data.spare)) TRY(fs::RemoveTree(data.spare));
  return fs::Exists(dir) ? fs::RemoveTree(dir) : Ok();
}

std::vector<std::string> GcContexts(runtime::Containers& containers, const std::filesystem::path& session_dir,
                                    std::vector<std::string>& errors) {
  std::vector<std::string> removed;
  auto journal = SessionJournal::Load(session_dir / layout::kJournal);
  if (!journal) return removed;
  for (const auto& entry : journal->entries()) {
    const auto* e = std::get_if<step::SessionContext>(&entry);
    if (!e) continue;
    const auto& dir = e->dir;
    if (fs::Exists(RecordFile(dir))) continue;  // a context that was made
    bool left = fs::Exists(dir) || (!e->spare.empty() && fs::Exists(e->spare)) || containers.State(e->id);
    if (!left) continue;  // undone before (context rm)
    if (auto s = UndoContext(containers, *e); !s) errors.push_back("context " + dir + ": " + s.error().msg);
    else removed.push_back("context " + e->id + " (half-made)");
  }
  return removed;
}

int64_t CountContexts(const std::filesystem::path& session_dir) {
  int64_t n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(ContextsDir(session_dir), ec))
    n += fs::Exists(RecordFile(e.path()));
  return n;
}

Status StopContexts(runtime::Containers& containers, const std::filesystem::path& session_dir) {
  std::vector<std::string> errors;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(ContextsDir(session_dir), ec)) {
    auto rec = ReadContext(e.path());
    if (!rec) continue;
    (void)fs::RemoveTree(RecordFile(e.path()));
    if (auto s = UndoContext(containers, UndoData(session_dir, *rec)); !s)
      errors.push_back(s.error().msg);
  }
  if (errors.empty()) return Ok();
  std::string all;
  for (const auto& m : errors) all += (all.empty() ? "" : "; ") + m;
  return MakeError("contexts: " + all, EIO);
}

}  // namespace sandshim::session
