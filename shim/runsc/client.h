// Client runs runsc verbs for one runsc root with one set of global flags. Verbs that must
// hand the container our stdio (create, run, exec) inherit it, and runsc's own error text is
// read back from a JSON log it writes (--log); the rest capture stdout and stderr. Every
// failure becomes an Error carrying runsc's message.
#pragma once

#include <sys/types.h>

#include <string>

#include "shim/core/process.h"
#include "shim/core/result.h"
#include "shim/runsc/leftovers.h"
#include "shim/runsc/runsc_cli.h"

namespace sandshim::runsc {

class Client {
 public:
  // error_log: where runsc writes its JSON error lines for inherited-stdio verbs.
  Client(Global g, std::filesystem::path error_log) : g_(std::move(g)), error_log_(std::move(error_log)) {}
  const Global& global() const { return g_; }

  Status Create(std::string_view id, const CreateOpts& o);
  // Foreground run: create, start, wait, delete. Returns the container's exit status.
  Result<int> Run(std::string_view id, const CreateOpts& o);
  Status Start(std::string_view id);
  Status Kill(std::string_view id, int signal, bool all);
  Status KillPid(std::string_view id, pid_t pid, int signal);
  Status Pause(std::string_view id);
  Status Resume(std::string_view id);
  // Saves the running sandbox into image (a directory that exists); the sandbox then ends.
  Status Checkpoint(std::string_view id, const std::filesystem::path& image);
  // A new sandbox from image, running when this returns (create's stdio rules).
  Status Restore(std::string_view id, const CreateOpts& o, const std::filesystem::path& image);
  // A foreground exec as a program for the caller to start and supervise (the gVisor backend's
  // exec): everything is prepared here, in the caller's process, so its child only execs.
  // inherited_stdio: which of our stdio descriptors runsc will get (they are made safe to
  // hand it); the caller's launch actions replace the others.
  Result<process::ProcessSpec> ExecLaunch(std::string_view id, const std::string& process_json, const ExecOpts& o,
                                   const std::vector<int>& inherited_stdio);
  // Detached exec done by sandshim itself (this runsc's --detach drops every argument that
  // contains "detach", container ids included): a background `runsc exec` whose pid is the
  // exec'd process as the caller sees it. Returns once the process runs inside the sandbox.
  // It joins cgroups (the container's) before it runs: it stands for the command for as long
  // as that runs, so it counts against the container's limits, not the caller's (review N4).
  Result<pid_t> ExecDetached(std::string_view id, const ExecOpts& o, const std::filesystem::path& internal_pid_file,
                             const std::vector<std::filesystem::path>& cgroups = {});
  Result<std::string> Ps(std::string_view id, bool json);
  Result<std::string> Stats(std::string_view id);
  // Removes everything of this container: runsc delete --force, then the processes, state
  // files and cgroups that it leaves behind. Idempotent; joins the errors of failed steps.
  Status Destroy(const Owner& owner, const std::string& cgroups_path);

 private:
  // create or restore: argv's verb leaves a sandbox running (netstack_setup: it also moves
  // the namespace's interfaces into netstack, with /proc/sys/net hidden).
  Status LaunchSandbox(std::vector<std::string> verb_argv, std::string_view what, bool netstack_setup);
  // reap: kAdoptedToo where runsc may end a sandbox we adopted (a zombie looks alive to
  // runsc's kill(pid, 0) polls); kOnlyThis where another owner waits for our children.
  Result<std::string> Captured(std::vector<std::string> argv, std::string_view what,
                               process::Reap reap = process::Reap::kAdoptedToo);
  Error Failed(std::string_view what, const std::string& describe);
  std::string LastLoggedError();

  Global g_;
  std::filesystem::path error_log_;
};

// Regular files among fds (a caller's stdout and stderr) in append mode. runsc truncates and
// chowns regular files it is handed as stdout/stderr, destroying what the caller had written
// before; and the Sentry writes a host file it is handed from its own offset, which starts at
// 0, not at the caller's (measured: `(echo before; sandshim exec c echo inside) >f` left
// "inside" over "before"). In append mode both leave what is there and write after it.
void ProtectStdio(const std::vector<int>& fds = {1, 2});

}  // namespace sandshim::runsc
