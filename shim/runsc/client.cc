#include "shim/runsc/client.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>

#include "shim/core/fs.h"
#include "shim/core/wait_file.h"
#include "shim/core/log.h"
#include "shim/core/netns_scope.h"
#include "shim/core/process_run.h"
#include "shim/core/unique_fd.h"
#include "shim/runsc/net_sysctl_mask.h"

namespace sandshim::runsc {
namespace {

// We are a subreaper: the sandbox and gofer that runsc leaves are ours to reap, and `runsc
// delete` waits for them to vanish (see process::Reap).
constexpr auto kReap = process::Reap::kAdoptedToo;

// Inserts --log/--log-format right after the binary so runsc writes its errors there.
std::vector<std::string> WithErrorLog(std::vector<std::string> argv, const std::filesystem::path& log) {
  argv.insert(argv.begin() + 1, {"--log=" + log.string(), "--log-format=json"});
  return argv;
}

// runsc fchowns the stdio it is handed to the sandbox user (measured: `</dev/null` left the
// host's /dev/null owned by nobody). A device that is not a terminal is swapped for a private
// node of the same device, made next to our state and unlinked at once: runsc may chown that.
// A private node of fd's device in dir, opened like fd and unlinked; -1 where dir cannot
// hold one (a nodev mount: a state root inside a session's guarded workspace).
int PrivateNode(const std::filesystem::path& dir, int fd, dev_t rdev) {
  auto node = dir / (".stdio-" + std::to_string(::getpid()) + "-" + std::to_string(fd));
  if (::mknod(node.c_str(), S_IFCHR | 0666, rdev) != 0) return -1;
  int flags = ::fcntl(fd, F_GETFL);
  int copy = ::open(node.c_str(), (flags >= 0 ? flags & (O_ACCMODE | O_APPEND) : O_RDWR) | O_CLOEXEC);
  ::unlink(node.c_str());
  return copy;
}

void PrivateStdioDevices(const std::filesystem::path& dir, const std::vector<int>& fds = {0, 1, 2}) {
  for (int fd : fds) {
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode) || ::isatty(fd)) continue;
    // Never the host's own node: runsc would chown it (/dev/null for every program on the
    // host). The state directory first, else /dev (devtmpfs takes a node of root's).
    int copy = PrivateNode(dir, fd, st.st_rdev);
    if (copy < 0) copy = PrivateNode("/dev", fd, st.st_rdev);
    if (copy < 0) {
      log::Warn("runsc: no private copy of stdio fd " + std::to_string(fd) + " (a device): runsc may chown it");
      continue;
    }
    ::dup2(copy, fd);  // dup2 clears FD_CLOEXEC on fd
    ::close(copy);
  }
}

void LogArgv(const std::vector<std::string>& argv) {
  std::string line = "exec:";
  for (const auto& a : argv) line += " " + a;
  log::Debug(line);
}

}  // namespace

void ProtectStdio(const std::vector<int>& fds) {
  for (int fd : fds) {
    if (fd < 0) continue;
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    int fl = ::fcntl(fd, F_GETFL);
    if (fl >= 0 && (fl & O_ACCMODE) != O_RDONLY && !(fl & O_APPEND)) ::fcntl(fd, F_SETFL, fl | O_APPEND);
  }
}

std::string Client::LastLoggedError() {
  auto text = fs::ReadFile(error_log_);
  if (!text) return "";
  std::string last;
  // runsc writes one JSON object per error, not always newline-terminated.
  boost::json::stream_parser p;
  std::string_view rest = *text;
  while (!rest.empty()) {
    boost::system::error_code ec;
    size_t n = p.write_some(rest.data(), rest.size(), ec);
    if (ec) break;
    rest.remove_prefix(n);
    if (!p.done()) break;
    auto v = p.release();
    if (v.is_object()) {
      auto& o = v.get_object();
      if (auto it = o.find("level"); it != o.end() && it->value() == "error")
        if (auto m = o.find("msg"); m != o.end() && m->value().is_string()) last = m->value().get_string();
    }
    p.reset();
    while (!rest.empty() && (rest.front() == '\n' || rest.front() == ' ')) rest.remove_prefix(1);
  }
  return last;
}

Error Client::Failed(std::string_view what, const std::string& describe) {
  return MakeError("runsc " + std::string(what) + ": " + describe, EIO);
}

Result<std::string> Client::Captured(std::vector<std::string> argv, std::string_view what, process::Reap reap) {
  LogArgv(argv);
  auto ns = TRY(NetnsScope::Enter(g_.netns));
  // stdin an empty memory file, not process::Run's /dev/null: runsc fchowns the stdio of the
  // verbs that hand it to a sandbox (traced: `runsc run` did fchown(0..2) to the container's
  // user), and no runsc verb of ours gets a host device node to do that to.
  auto o = TRY(process::Run({.argv = std::move(argv), .input = "", .timeout = std::chrono::seconds(60), .reap = reap}));
  if (!o.Success()) return Failed(what, o.Describe());
  return o.out;
}

Status Client::Create(std::string_view id, const CreateOpts& opts) {
  return LaunchSandbox(CreateArgv(g_, opts, id), "create", /*netstack_setup=*/false);
}

// create and restore: the verbs that leave a sandbox and its gofer running.
Status Client::LaunchSandbox(std::vector<std::string> verb_argv, std::string_view what, bool netstack_setup) {
  ProtectStdio();
  PrivateStdioDevices(error_log_.parent_path());
  ::unlink(error_log_.c_str());
  auto argv = WithErrorLog(std::move(verb_argv), error_log_);
  LogArgv(argv);
  auto ns = TRY(NetnsScope::Enter(g_.netns));  // where runsc binds the control socket
  auto mask = TRY(NetSysctlMask::Enter(netstack_setup && UsesNetstack(g_.flags)));
  // They must not share our caller's job.
  auto o = TRY(process::Run({.argv = std::move(argv), .capture = false, .new_session = true, .reap = kReap}));
  if (!o.Success()) {
    std::string msg = LastLoggedError();
    return Failed(what, msg.empty() ? o.Describe() : msg);
  }
  return Ok();
}

Result<int> Client::Run(std::string_view id, const CreateOpts& opts) {
  ProtectStdio();
  PrivateStdioDevices(error_log_.parent_path());
  ::unlink(error_log_.c_str());
  auto argv = WithErrorLog(RunArgv(g_, opts, id, false), error_log_);
  LogArgv(argv);
  auto ns = TRY(NetnsScope::Enter(g_.netns));  // where runsc binds the control socket
  // run sets up netstack too; its sandbox and gofer keep the private mount namespace, a copy
  // of the host's that differs only in /proc/sys/net.
  auto mask = TRY(NetSysctlMask::Enter(UsesNetstack(g_.flags)));
  auto o = TRY(process::Run({.argv = std::move(argv), .capture = false, .forward_signals = true, .reap = kReap}));
  // runsc exits 128 with a logged error when it could not run the container at all.
  std::string msg = LastLoggedError();
  if (!msg.empty() && o.status.code == 128) return Failed("run", msg);
  return o.Status();
}

Status Client::Start(std::string_view id) {
  // start is where runsc moves the namespace's interfaces into netstack.
  auto mask = TRY(NetSysctlMask::Enter(UsesNetstack(g_.flags)));
  TRY(Captured(StartArgv(g_, id), "start"));
  return Ok();
}

Status Client::Kill(std::string_view id, int signal, bool all) {
  TRY(Captured(KillArgv(g_, id, signal, all), "kill"));
  return Ok();
}

Status Client::KillPid(std::string_view id, pid_t pid, int signal) {
  // A process inside the sandbox: no host process of ours ends, so nothing to reap but runsc
  // (an exec's KillTree runs this while its runsc exec child, reaped by its owner, exits).
  TRY(Captured(KillPidArgv(g_, id, pid, signal), "kill", process::Reap::kOnlyThis));
  return Ok();
}

Status Client::Pause(std::string_view id) {
  TRY(Captured(PauseArgv(g_, id), "pause"));
  return Ok();
}

Status Client::Resume(std::string_view id) {
  TRY(Captured(ResumeArgv(g_, id), "resume"));
  return Ok();
}

Status Client::Checkpoint(std::string_view id, const std::filesystem::path& image) {
  // The sandbox's memory is written out: seconds per GiB, not the 60 s of a plain verb.
  auto argv = CheckpointArgv(g_, id, image);
  LogArgv(argv);
  auto ns = TRY(NetnsScope::Enter(g_.netns));
  auto o = TRY(process::Run({.argv = std::move(argv), .input = "", .timeout = std::chrono::minutes(10), .reap = kReap}));
  if (!o.Success()) return Failed("checkpoint", o.Describe());
  return Ok();
}

Status Client::Restore(std::string_view id, const CreateOpts& opts, const std::filesystem::path& image) {
  // restore sets up the network as start does (see Start).
  return LaunchSandbox(RestoreArgv(g_, opts, id, image), "restore", /*netstack_setup=*/true);
}

Result<process::ProcessSpec> Client::ExecLaunch(std::string_view id, const std::string& process_json, const ExecOpts& opts,
                                         const std::vector<int>& inherited_stdio) {
  ProtectStdio(inherited_stdio);
  PrivateStdioDevices(error_log_.parent_path(), inherited_stdio);
  // The process JSON travels in a memfd that runsc opens through /proc/self/fd: no file to
  // clean up after a process we will not be around to see finish. The child keeps it at the
  // same number (dup2 onto itself clears close-on-exec), so no other descriptor is disturbed.
  UniqueFd fd(::memfd_create("sandshim-process", MFD_CLOEXEC));
  if (!fd.valid()) return ErrnoError("memfd_create");
  if (::write(fd.get(), process_json.data(), process_json.size()) != static_cast<ssize_t>(process_json.size()))
    return ErrnoError("write process");
  ExecOpts o = opts;
  o.process_file = "/proc/self/fd/" + std::to_string(fd.get());
  process::ProcessSpec l;
  l.argv = ExecArgv(g_, o, id);
  l.exe = process::Resolve(l.argv[0]);
  l.netns = g_.netns;
  l.Dup(fd.get(), fd.get());
  l.owned.push_back(std::move(fd));
  LogArgv(l.argv);
  return l;
}

Result<pid_t> Client::ExecDetached(std::string_view id, const ExecOpts& opts,
                                   const std::filesystem::path& internal_pid_file,
                                   const std::vector<std::filesystem::path>& cgroups) {
  ProtectStdio();
  PrivateStdioDevices(error_log_.parent_path());  // the background runsc exec gets our stdio
  ExecOpts fg = opts;
  fg.detach = false;
  fg.pid_file.reset();
  fg.internal_pid_file = internal_pid_file;
  ::unlink(internal_pid_file.c_str());
  ::unlink(error_log_.c_str());
  auto argv = WithErrorLog(ExecArgv(g_, fg, id), error_log_);
  LogArgv(argv);
  // In the background, in a session of its own: our caller's job signals do not reach it.
  auto child = TRY(process::Spawn({.argv = argv, .new_session = true, .netns = g_.netns, .cgroups = cgroups}));
  // runsc writes the internal pid once the process runs in the sandbox; if the runsc exec
  // exits first, the exec failed (or the process was very short-lived and already done).
  auto started = fs::WaitForFile(internal_pid_file, child.pidfd(), process::Clock::now() + std::chrono::seconds(30));
  if (!started) return Failed("exec", "process did not start within 30s: " + started.error().msg);
  if (!*started) {
    std::string msg = LastLoggedError();
    if (!msg.empty()) return Failed("exec", msg);
  }
  return child.Release();  // the caller reaps its status
}

Result<std::string> Client::Ps(std::string_view id, bool json) {
  return Captured(PsArgv(g_, id, json), "ps", process::Reap::kOnlyThis);  // see KillPid
}

Result<std::string> Client::Stats(std::string_view id) { return Captured(EventsStatsArgv(g_, id), "events"); }

Status Client::Destroy(const Owner& owner, const std::string& cgroups_path) {
  std::string errors;
  auto note = [&](const Status& s) {
    if (!s) errors += (errors.empty() ? "" : "; ") + s.error().msg;
  };
  // Only ask runsc when it still knows the container (a finished `runsc run` deleted it
  // already; each runsc call costs ~30 ms). The sweeps below cover whatever it misses.
  if (HasStateFiles(owner)) {
    auto ns = NetnsScope::Enter(g_.netns);
    if (!ns) note(ns.error());
    auto del = process::Run(
        {.argv = DeleteArgv(g_, owner.id, true), .input = "", .timeout = std::chrono::seconds(30), .reap = kReap});
    if (del && !del->Success()) log::Debug("runsc delete " + owner.id + ": " + del->Describe());
  }
  note(KillProcesses(owner));
  note(RemoveStateFiles(owner));
  note(RemoveCgroups(cgroups_path));
  if (!errors.empty()) return MakeError("destroy " + owner.id + ": " + errors, EBUSY);
  return Ok();
}

}  // namespace sandshim::runsc
