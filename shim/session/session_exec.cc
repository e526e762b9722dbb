// Sessions::Exec: one command in a session, with its exit status, output streams, timeout
// (the command's handle ends its whole process tree) and an audit line.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <set>

#include "shim/core/fault.h"
#include "shim/core/fs.h"
#include "shim/core/log.h"
#include "shim/core/unique_fd.h"
#include "shim/session/store/audit.h"
#include "shim/session/exec/exec_guard.h"
#include "shim/session/exec/exec_policy.h"
#include "shim/session/contexts/contexts.h"
#include "shim/session/sessions.h"
#include "shim/session/exec/shell_state.h"

namespace sandshim::session {
namespace json = boost::json;

Status Sessions::UpdateAfterExec(const std::string& id, const RunnerOutcome& o, const std::string& started) {
  auto lock = TRY(store_.Lock(id));
  auto r = TRY(ReadRecord(id));
  if (started > r.last_used) r.last_used = started;  // also where there is no last-used file
  r.execs++;
  if (o.status != 0) r.exec_failures++;
  if (o.timed_out) r.exec_timeouts++;
  r.exec_seconds += static_cast<double>(o.duration.count()) / 1000.0;
  return Save(r, /*durable=*/false);
}

// The names the exec's spec environment sets (proxies with their token, secrets'
// placeholders, PATH, HOME...): sandshim's, for each exec; the shell state never replaces them.
static std::set<std::string> SpecEnvNames(const bundle::Spec& spec) {
  std::set<std::string> out;
  const auto* p = spec.doc.if_contains("process");
  const auto* env = p && p->is_object() ? p->get_object().if_contains("env") : nullptr;
  if (env && env->is_array())
    for (const auto& kv : env->get_array())
      if (kv.is_string()) {
        std::string text(kv.get_string());
        out.insert(text.substr(0, text.find('=')));
      }
  return out;
}

// --shell: the script in the wrapper, started with the state the last --shell exec ended
// with (host-kept data: the environment and a directory, never code). --env wins over it.
static bundle::ExecOverrides WithShellState(bundle::ExecOverrides ov, const std::filesystem::path& dir,
                                            const std::string& context, const CarryRule& rule) {
  std::string script;
  for (const auto& a : ov.args) script += (script.empty() ? "" : " ") + a;
  auto loaded = LoadShellState(dir, context);
  if (!loaded) log::Warn("persistent shell: " + loaded.error().msg + "; starting afresh");
  auto state = Carried(loaded.value_or(ShellState{}), rule);
  std::set<std::string> given;
  for (const auto& kv : ov.env) given.insert(kv.substr(0, kv.find('=')));
  std::vector<std::string> env;
  for (const auto& [k, v] : state.env)
    if (!given.contains(k)) env.push_back(k + "=" + v);
  env.insert(env.end(), ov.env.begin(), ov.env.end());
  ov.env = std::move(env);
  ov.args = ShellArgv(script, state.cwd);
  return ov;
}

// What the exec reported on fd 3, kept as the next one's start; anything unusable leaves the
// state as it was (an exec killed before its trap ran reports nothing).
void Sessions::KeepShellState(const std::string& id, const std::string& context, const RunnerOutcome& o,
                              const CarryRule& rule) {
  if (o.channel.empty()) return;
  auto parsed = o.channel_overflow ? Result<ShellState>(MakeError("larger than 1 MiB", E2BIG)) : ParseShellReport(o.channel);
  if (!parsed) {
    log::Warn("session " + id + ": persistent shell state not updated: " + parsed.error().msg);
    return;
  }
  if (auto s = SaveShellState(Dir(id), context, Carried(std::move(*parsed), rule)); !s)
    log::Warn("session " + id + ": persistent shell state not saved: " + s.error().msg);
}

// The exec under the session's guard (exec_guard.h), with a pipe for its refusals (r, w) when
// its stdio can carry one more descriptor: not a terminal, which gVisor starts through runsc
// exec (only its own stdio); there a refusal is said on the terminal and not audited.
static Status GuardExec(json::object& process, runtime::ExecStdio& stdio, const std::vector<std::string>& rules,
                        UniqueFd& r, UniqueFd& w) {
  int fd = -1;
  if (!stdio.terminal) {
    int p[2];
    if (::pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) return ErrnoError("exec guard: pipe");
    r.Reset(p[0]);
    w.Reset(p[1]);
    fd = 3 + static_cast<int>(stdio.extra.size());  // the extra ones are 3, 4, ...
    stdio.extra.push_back(w.get());
  }
  UnderGuard(process, rules, fd);
  return Ok();
}

// The lifeline's pipe: both ends close-on-exec here, so nothing we start holds the writer.
static Status OpenLifeline(UniqueFd& r, UniqueFd& w) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return ErrnoError("exec: lifeline pipe");
  r.Reset(fds[0]);
  w.Reset(fds[1]);
  return Ok();
}

Result<SessionRecord> Sessions::ForExec(const std::string& ref) {
  auto id = TRY(Resolve(ref));
  auto r = TRY(ReadRecord(id));
  if (r.state == SessionState::kStopped) return MakeError("session " + id + " is stopped (session start " + id + ")", EINVAL);
  if (r.state == SessionState::kPaused) return MakeError("session " + id + " is paused (session resume " + id + ")", EINVAL);
  return r;
}

// Everything here before the command starts is on the latency path: the record was read once
// and without the lock (ForExec), the container's record is read once (StartExec), and on
// gVisor the command starts through the sandbox's control server.
Result<RunnerOutcome> Sessions::Exec(const SessionRecord& r, const SessionExec& e) {
  const std::string& id = r.id;
  auto gate = TRY(Gate(r, e));  // #19: the command policy decides before anything runs
  if (gate.refused) return *gate.refused;
  MarkUsed(id);
  auto started = log::NowRfc3339();
  bundle::ExecOverrides ov = e.overrides;
  auto target = TRY(ExecTargetFor(Dir(id), r, e.context));
  auto spec = TRY(bundle::LoadSpec(target.bundle));
  // What sandshim sets for this exec never comes from the shell state (shell_state.h).
  CarryRule carry{.authoritative = e.shell ? SpecEnvNames(spec) : std::set<std::string>{}, .judged = gate.judged};
  if (e.shell) ov = WithShellState(std::move(ov), Dir(id), e.context, carry);
  if (gate.memory_bytes > 0 && runtime::TraitsOf(r.backend).memory_limited_inside)
    ov.args = UnderMemoryLimit(ov.args, gate.memory_bytes);
  // A gVisor context's commands start in its network namespace, which only its broker is in:
  // the exec runs the broker's client, which stands in for the command (docs/CONTEXTS.md).
  bool brokered = target.container_id != r.container_id && HasBroker(spec.doc);
  if (brokered && ov.user.empty()) ov.user = BrokerExecUser(spec.doc);
  runtime::ExecRequest req;
  req.process = TRY(bundle::ProcessFromOverrides(spec, ov));
  if (gate.memory_bytes > 0) LimitExecMemory(req.process, gate.memory_bytes);
  // A named context's exec ends what it started (unless --keep): the broker's sweep on
  // gVisor, a cgroup of the exec's own on native. The default context keeps, as before.
  bool keep = e.keep || e.context.empty() || e.context == kDefaultContext;
  RunnerOptions ro{.timeout = e.timeout.count() > 0 ? e.timeout : gate.timeout,
                   .capture_limit = e.capture_limit,
                   .channel = e.shell && !ov.tty};  // --shell reports its state on fd 3
  // A named context's command ends when this process does, however it ends (an
  // orchestrator's SIGKILL included): the client in the sandbox holds the read end of a pipe
  // whose only writer is ours, and ends the command when it closes (run.cc --lifeline): with
  // what it started, or, --keep, the command alone (what it started was asked to outlive it,
  // and shows in `context ps`). Not with a terminal (runsc exec takes no extra descriptors).
  bool named = !e.context.empty() && e.context != kDefaultContext;
  UniqueFd lifeline_r, lifeline_w;
  if (brokered && named && !ov.tty && OwnRunClient(spec.doc)) TRY(OpenLifeline(lifeline_r, lifeline_w));
  if (brokered)
    req.process = TRY(ThroughBroker(std::move(req.process), spec.doc, ov.cap_add, /*end_leftovers=*/!keep,
                                    lifeline_r.valid() ? (ro.channel ? 4 : 3) : 0));
  else
    req.end_leftovers = !keep && target.container_id != r.container_id;
  fault::Point("session.exec.before-backend");
  if (ro.timeout.count() > 0) req.start_deadline = std::chrono::steady_clock::now() + ro.timeout;
  auto runner = TRY(ov.tty ? ExecRunner::Terminal(ro) : ExecRunner::Pipes(ro));
  auto stdio = runner->Stdio();
  if (lifeline_r.valid()) stdio.extra.push_back(lifeline_r.get());  // after --shell's fd 3, if any
  UniqueFd guard_r, guard_w;  // #33: deny rules at execve, by the guard the spec binds (not a context's yet)
  if (!brokered && target.container_id == r.container_id && WantGuard(gate.guard_rules, spec.doc))
    TRY(GuardExec(req.process, stdio, gate.guard_rules, guard_r, guard_w));
  auto cmd = containers_.StartExec(target.container_id, req, stdio);
  guard_w.Reset();  // the guard's own copy is the only writer left
  lifeline_r.Reset();  // the sandbox has its own; lifeline_w stays open until we end
  auto outcome = runner->Run(std::move(cmd));
  runner.reset();  // our terminal back to normal before anything more is said
  if (guard_r.valid()) AuditGuardRefusals(guard_r.get(), r.audit, id, e.overrides.args);
  if (!outcome) return outcome.error();
  if (ro.channel) KeepShellState(id, e.context, *outcome, carry);
  if (auto s = UpdateAfterExec(id, *outcome, started); !s) log::Warn("session " + id + ": " + s.error().msg);
  json::array argv, env_keys;
  for (const auto& a : e.overrides.args) argv.emplace_back(a);
  // Keys only: values may be secrets.
  for (const auto& kv : e.overrides.env) env_keys.emplace_back(kv.substr(0, kv.find('=')));
  auto cwd = bundle::GetString(req.process, "cwd");
  (void)AppendAudit(r.audit, "exec",
                    {{"session", id},
                     {"backend", r.backend},
                     {"context", e.context.empty() ? kDefaultContext : e.context},
                     {"argv", std::move(argv)},
                     {"env_keys", std::move(env_keys)},
                     {"cwd", cwd},
                     {"shell", e.shell},
                     {"exit", outcome->status},
                     {"timed_out", outcome->timed_out},
                     {"duration_ms", outcome->duration.count()},
                     {"bytes_out", outcome->bytes_out},
                     {"bytes_err", outcome->bytes_err}});
  return outcome;
}

}  // namespace sandshim::session
