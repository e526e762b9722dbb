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

void Sessions::KillTree(const std::string& container, proc::Running& cmd, bool in_sandbox,
                        const std::filesystem::path& internal_pid_file) {
  // Inside gVisor the tree hangs off the command's pid in the sandbox: the one it was started
  // with, or (runsc exec) the one runsc wrote. Native: off our child, in the host's pid space.
  pid_t root = cmd.Pid();
  if (!internal_pid_file.empty()) {
    for (int i = 0; i < 50 && !fs::Exists(internal_pid_file); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    root = static_cast<pid_t>(std::atoi(fs::ReadFile(internal_pid_file).value_or("0").c_str()));
  }
  pid_t init = 1;  // gVisor's init inside the sandbox
  if (!in_sandbox && internal_pid_file.empty())
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
  // runsc exec or our forked child; in the sandbox, the command itself (through the control
  // server), in case the process table could not be read.
  (void)cmd.Signal(SIGKILL);
}

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

// Everything here before the command starts is on the latency path: the record is read once
// and without the lock, and on gVisor the command starts through the sandbox's control
// server (ExecDirect), with runsc exec (ExecLaunch) as the fallback.
Result<RunnerOutcome> Sessions::Exec(const std::string& ref, const SessionExec& e) {
  auto id = TRY(Resolve(ref));
  auto r = TRY(ReadRecord(id));
  if (r.state == SessionState::kStopped) return MakeError("session " + id + " is stopped (session start " + id + ")", EINVAL);
  // The native backend runs from a sealed copy of sandshim: become it before anything else.
  if (r.backend == "native") TRY(containers_.PrepareExec(r.container_id));
  MarkUsed(id);
  auto started = log::NowRfc3339();
  bundle::ExecOverrides ov = e.overrides;
  if (e.shell) {
    std::string script;
    for (const auto& a : ov.args) script += (script.empty() ? "" : " ") + a;
    ov.args = ShellArgv(script);
  }
  auto spec = TRY(bundle::LoadSpec(Dir(id) / "bundle"));
  runtime::ExecRequest req;
  req.process = TRY(bundle::ProcessFromOverrides(spec, ov));
  fault::Point("session.exec.before-backend");
  RunnerOptions ro{.timeout = e.timeout, .capture_limit = e.capture_limit};
  req.inherited_stdio = ov.tty ? std::vector<int>{} : std::vector<int>{0};
  // The native runtime makes the pty inside the container and hands the master to a console
  // socket; gVisor presents a host pty given as stdio as a terminal.
  if (ov.tty && r.backend == "native") req.console_socket = Dir(id) / ("tty-" + std::to_string(::getpid()) + ".sock");
  // Only runsc exec needs to be told where to write the command's pid inside the sandbox (a
  // deadline ends its tree from there); it costs runsc about a millisecond, so only then.
  std::filesystem::path internal;
  bool in_sandbox = false;
  CommandSide side;
  side.direct = [&](const std::array<int, 3>& stdio) -> Result<std::unique_ptr<proc::Running>> {
    auto cmd = TRY(containers_.ExecDirect(r.container_id, req, stdio));
    in_sandbox = cmd != nullptr;
    return cmd;
  };
  side.launch = [&]() -> Result<std::optional<spawn::Launch>> {
    if (r.backend == "gvisor" && e.timeout.count() > 0) {
      internal = Dir(id) / ("exec-" + std::to_string(::getpid()) + ".pid");
      req.internal_pid_file = internal;
    }
    return containers_.ExecLaunch(r.container_id, req);
  };
  side.child = [&]() -> int {
    auto status = containers_.Exec(r.container_id, req);
    if (status) return *status;
    std::cerr << "sandshim: session exec " << id << ": " << status.error().msg << "\n";
    return 125;
  };
  auto kill_tree = [&](proc::Running& cmd) { KillTree(r.container_id, cmd, in_sandbox, internal); };
  auto outcome = ov.tty ? RunChildWithTty(std::move(side), req.console_socket, ro, kill_tree)
                        : RunChild(std::move(side), ro, kill_tree);
  if (!internal.empty()) ::unlink(internal.c_str());
  if (!outcome) return outcome.error();
  if (auto s = UpdateAfterExec(id, *outcome, started); !s) log::Warn("session " + id + ": " + s.error().msg);
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
