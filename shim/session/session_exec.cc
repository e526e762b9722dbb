// Sessions::Exec: one command in a session, with its exit status, output streams, timeout
// (the whole process tree of that command is killed) and an audit line.
#include <signal.h>
#include <unistd.h>

#include <iostream>
#include <set>
#include <thread>

#include "shim/core/fault.h"
#include "shim/core/fs.h"
#include "shim/core/log.h"
#include "shim/session/audit.h"
#include "shim/session/process_tree.h"
#include "shim/session/sessions.h"
#include "shim/session/shell_state.h"
#include "shim/session/tty_relay.h"

namespace sandshim::session {
namespace json = boost::json;

void Sessions::KillTree(const std::string& container, pid_t runner, const std::filesystem::path& internal_pid_file) {
  // gVisor: the tree hangs off the command's pid inside the sandbox (runsc wrote it);
  // native: off our child, in the host's pid space.
  pid_t root = runner;
  if (!internal_pid_file.empty()) {
    for (int i = 0; i < 50 && !fs::Exists(internal_pid_file); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    root = static_cast<pid_t>(std::atoi(fs::ReadFile(internal_pid_file).value_or("0").c_str()));
  }
  pid_t init = 1;  // gVisor's init inside the sandbox
  if (internal_pid_file.empty())
    if (auto st = containers_.State(container); st) init = st->init.pid;
  if (root > 0) {
    // Stop first, so nothing forks away while we look; then kill what was stopped.
    std::set<pid_t> stopped;
    for (int round = 0; round < 10; ++round) {
      auto table = containers_.ProcessTable(container);
      if (!table) break;
      size_t before = stopped.size();
      for (pid_t p : Subtree(*table, root, init))
        if (stopped.insert(p).second) (void)containers_.SignalProcess(container, p, SIGSTOP);
      if (stopped.size() == before) break;
    }
    for (pid_t p : stopped) (void)containers_.SignalProcess(container, p, SIGKILL);
    log::Info("session exec timed out: killed " + std::to_string(stopped.size()) + " processes");
  }
  ::kill(runner, SIGKILL);
}

Status Sessions::UpdateAfterExec(const std::string& id, const RunnerOutcome& o) {
  auto lock = TRY(store_.Lock(id));
  auto r = TRY(Load(id));
  r.execs++;
  if (o.status != 0) r.exec_failures++;
  if (o.timed_out) r.exec_timeouts++;
  r.exec_seconds += static_cast<double>(o.duration.count()) / 1000.0;
  return Save(r, /*durable=*/false);
}

Result<RunnerOutcome> Sessions::Exec(const std::string& ref, const SessionExec& e) {
  auto id = TRY(Resolve(ref));
  auto r = TRY(Load(id));
  if (r.state == "stopped") return MakeError("session " + id + " is stopped (session start " + id + ")", EINVAL);
  // The native backend runs from a sealed copy of sandshim: become it before forking.
  TRY(containers_.PrepareExec(r.container_id));
  {
    auto lock = TRY(store_.Lock(id));
    auto fresh = TRY(Load(id));
    fresh.last_used = log::NowRfc3339();
    TRY(Save(fresh, /*durable=*/false));
  }
  bundle::ExecOverrides ov = e.overrides;
  if (e.shell) {
    std::string script;
    for (const auto& a : ov.args) script += (script.empty() ? "" : " ") + a;
    ov.args = ShellArgv(script);
  }
  auto spec = TRY(containers_.SpecOf(r.container_id));
  runtime::ExecRequest req;
  req.process = TRY(bundle::ProcessFromOverrides(spec, ov));
  std::filesystem::path internal;
  if (r.backend == "gvisor") {
    internal = Dir(id) / ("exec-" + std::to_string(::getpid()) + ".pid");
    req.internal_pid_file = internal;
  }
  fault::Point("session.exec.before-backend");
  RunnerOptions ro{.timeout = e.timeout, .capture_limit = e.capture_limit};
  auto child = [&]() -> int {
    auto status = containers_.Exec(r.container_id, req);
    if (status) return *status;
    std::cerr << "sandshim: session exec " << id << ": " << status.error().msg << "\n";
    return 125;
  };
  auto kill_tree = [&](pid_t runner) { KillTree(r.container_id, runner, internal); };
  Result<RunnerOutcome> outcome = MakeError("not run");
  if (ov.tty) {
    // gVisor presents a host pty given as stdio as a terminal; the native runtime makes the
    // pty inside the container and hands the master to a console socket.
    if (r.backend == "native") req.console_socket = Dir(id) / ("tty-" + std::to_string(::getpid()) + ".sock");
    outcome = RunChildWithTty(child, req.console_socket, ro, kill_tree);
  } else {
    outcome = RunChild(child, ro, kill_tree);
  }
  if (!internal.empty()) ::unlink(internal.c_str());
  if (!outcome) return outcome.error();
  if (auto s = UpdateAfterExec(id, *outcome); !s) log::Warn("session " + id + ": " + s.error().msg);
  json::array argv, env_keys;
  for (const auto& a : e.overrides.args) argv.emplace_back(a);
  // Keys only: values may be secrets.
  for (const auto& kv : e.overrides.env) env_keys.emplace_back(kv.substr(0, kv.find('=')));
  auto cwd = bundle::GetString(req.process, "cwd");
  (void)AppendAudit(r.audit, "exec",
                    {{"session", id},
                     {"backend", r.backend},
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
