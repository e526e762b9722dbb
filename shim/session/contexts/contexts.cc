#include "shim/session/contexts/contexts.h"
#include "shim/session/contexts/contexts_internal.h"

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
#include "shim/linux/netns.h"
#include "shim/net/relay.h"
#include "shim/net/secret_book.h"
#include "shim/net/secret_control.h"
#include "shim/session/store/audit.h"
#include "shim/session/store/host.h"
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
namespace contexts_internal {

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

}  // namespace contexts_internal
using namespace contexts_internal;

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

Contexts::Contexts(runtime::Options o, SessionLookup& sessions)
    : opts_(o), sessions_(sessions), containers_(std::move(o)), sys_(HostOf(opts_)) {}

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
  TRY(UndoContext(containers_, UndoData(store.Dir(s.id), *rec), sys_));
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

Status UndoContext(runtime::Containers& containers, const step::SessionContext& data, native::Sys& sys) {
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
  TRY(UnmountContextLayer(dir, sys));  // native: its own layer (before its directory goes)
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
