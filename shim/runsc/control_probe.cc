#include "shim/runsc/control_probe.h"

#include <fcntl.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstdlib>

#include "shim/core/fs.h"
#include "shim/core/netns_scope.h"
#include "shim/core/process_run.h"
#include "shim/core/unique_fd.h"
#include "shim/runsc/control.h"
#include "shim/runsc/exec_args.h"
#include "shim/runsc/leftovers.h"

namespace sandshim::runsc {
namespace json = boost::json;
namespace {

constexpr auto kVerbTimeout = std::chrono::seconds(10);

// One runsc verb in the probe's namespace. stdin is an empty memory file, never /dev/null:
// runsc hands the sandbox the stdio it runs with and chowns it to the sandbox's user.
std::string RunVerb(const Global& g, std::vector<std::string> argv) {
  auto ns = NetnsScope::Enter(g.netns);
  if (!ns) return ns.error().msg;
  auto o = process::Run({.argv = std::move(argv), .input = "", .timeout = kVerbTimeout,
                         .reap = process::Reap::kAdoptedToo});
  if (!o) return o.error().msg;
  return o->Success() ? "" : o->Describe();
}

// ExecuteAsync + WaitPID of /bin/true, stdio a pipe of ours; the status must be 0.
Status ExecTrue(ControlConnection& conn, const std::string& id) {
  auto process = json::parse(R"({"args":["/bin/true"],"cwd":"/","env":["PATH=/usr/bin:/bin"],
                                 "user":{"uid":0,"gid":0},"capabilities":{}})").as_object();
  auto args = TRY(ExecArgsFor(process, id, false));
  if (!args) return MakeError("no ExecArgs for the probe's process", EINVAL);
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return ErrnoError("pipe");
  UniqueFd rd(p[0]), wr(p[1]);
  std::vector<int> files{rd.get(), wr.get(), wr.get()};
  SetGuestFds(*args, files.size());
  auto pid = TRY(conn.Call("containerManager.ExecuteAsync", *args, files));
  if (!pid.is_int64()) return MakeError("ExecuteAsync answered without a pid", EPROTO);
  auto ws = TRY(conn.Call("containerManager.WaitPID", json::object{{"PID", pid.as_int64()}, {"CID", id}}));
  if (!ws.is_number() || ws.to_number<int64_t>() != 0) return MakeError("/bin/true did not exit 0", EPROTO);
  return Ok();
}

// The real uid of /proc/<pid>/status's "Uid:" line (-1: unreadable).
int64_t SandboxUid(pid_t pid) {
  auto status = fs::ReadFile("/proc/" + std::to_string(pid) + "/status");
  if (!status) return -1;
  auto at = status->find("\nUid:");
  if (at == std::string::npos) return -1;
  char* end = nullptr;
  long long uid = std::strtoll(status->c_str() + at + 5, &end, 10);
  return end == status->c_str() + at + 5 ? -1 : uid;
}

ControlProbe AskSandbox(const Global& g, const std::string& id, const std::filesystem::path& pid_file) {
  pid_t pid = static_cast<pid_t>(std::atoi(fs::ReadFile(pid_file).value_or("0").c_str()));
  auto start = proc::StartTime(pid);
  if (pid <= 0 || !start) return {"", "no sandbox pid"};
  int64_t uid = SandboxUid(pid);
  ControlAddress at{.kind = ControlSocket::kAbstract, .sandbox_id = id, .runsc_root = g.root, .netns = g.netns};
  if (fs::Exists(ControlSocketPath(g.root, id))) at.kind = ControlSocket::kPath;
  auto conn = ControlConnection::Connect(at, {pid, *start});
  if (!conn) return {"", "control server: " + conn.error().msg, uid};
  if (auto ok = ExecTrue(*conn, id); !ok) return {"", "control exec: " + ok.error().msg, uid};
  return {std::string(at.kind == ControlSocket::kPath ? kControlPath : kControlAbstract), "", uid};
}

}  // namespace

ControlProbe ProbeControl(const Global& g, const std::filesystem::path& bundle, const std::string& id) {
  auto pid_file = bundle.parent_path() / (id + ".pid");
  ControlProbe r;
  r.why = RunVerb(g, CreateArgv(g, {.bundle = bundle, .pid_file = pid_file}, id));
  if (r.why.empty()) r.why = RunVerb(g, StartArgv(g, id));
  if (r.why.empty()) r = AskSandbox(g, id, pid_file);
  (void)RunVerb(g, DeleteArgv(g, id, true));
  (void)KillProcesses(Owner{g.root, id, bundle});
  return r;
}

}  // namespace sandshim::runsc
