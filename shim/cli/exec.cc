// `exec`: run another process in a running container, from --process FILE or from the
// command line (runc's flags: --tty --cwd --env --user ...). Flags end at the container id;
// everything after it is the command.
#include <unistd.h>

#include "bundle/process.h"
#include "shim/cli/verbs.h"

namespace sandshim::cli {

struct ExecArgs {
  std::string process_file;
  bundle::ExecOverrides overrides;
  bool detach = false;
  std::string pid_file, console_socket, ignored;
  int preserve_fds = 0;
};

static Result<runtime::ExecRequest> BuildRequest(runtime::Containers& c, const ExecArgs& a, const std::string& id,
                                                 std::vector<std::string> argv) {
  runtime::ExecRequest r;
  if (!a.process_file.empty()) {
    r.process = TRY(bundle::LoadProcess(a.process_file));
  } else {
    auto spec = TRY(c.SpecOf(id));
    bundle::ExecOverrides o = a.overrides;
    o.args = std::move(argv);
    r.process = TRY(bundle::ProcessFromOverrides(spec, o));
  }
  r.detach = a.detach;
  r.preserve_fds = a.preserve_fds;
  if (!a.pid_file.empty()) r.pid_file = std::filesystem::absolute(a.pid_file);
  return r;
}

void RegisterExec(Verbs& v) {
  auto a = std::make_shared<ExecArgs>();
  auto self = std::make_shared<CLI::App*>(nullptr);
  auto* sub = v.Add("exec", "run a process in a running container", [&v, a, self] {
    std::vector<std::string> rest = (*self)->remaining();
    if (rest.empty()) return ExitWith(Status(MakeError("exec: container id required", EINVAL)));
    std::string id = rest.front();
    rest.erase(rest.begin());
    auto c = OpenContainers(v.global);
    if (!c) return ExitWith(Status(c.error()));
    // First, before anything else: exec into a native container runs from a sealed copy.
    auto traits = c->TraitsOf(id);
    if (!traits) return ExitWith(Status(traits.error().Wrap("exec " + id)));
    runtime::EnsureSealedFor(*traits);
    auto req = BuildRequest(*c, *a, id, std::move(rest));
    if (!req) return ExitWith(Status(req.error().Wrap("exec " + id)));
    // With a console socket the backend makes the terminal and sends its master there.
    auto stdio = a->console_socket.empty() ? runtime::ExecStdio{}
                                           : runtime::ExecStdio::Terminal(std::filesystem::absolute(a->console_socket));
    auto status = c->Exec(id, std::move(*req), stdio);
    // A command that is not there (the sandbox said so before anything ran) is 127, as a
    // shell and the native runtime report it; the message says which.
    if (!status && status.error().err_no == ENOENT) return ExitWith(Status(status.error().Wrap("exec " + id))), 127;
    if (!status) return ExitWith(Status(status.error().Wrap("exec " + id)));
    return a->detach ? 0 : *status;
  });
  auto& o = a->overrides;
  sub->add_option("-p,--process", a->process_file, "OCI process JSON file");
  sub->add_flag("-t,--tty", o.tty, "allocate a pseudo-TTY");
  sub->add_option("--cwd", o.cwd, "working directory");
  sub->add_option("-e,--env", o.env, "KEY=VALUE (repeatable)")->allow_extra_args(false);
  sub->add_option("-u,--user", o.user, "uid[:gid]");
  sub->add_option("-g,--additional-gids", o.additional_gids, "extra gid (repeatable)")->allow_extra_args(false);
  sub->add_option("-c,--cap", o.cap_add, "add a capability (repeatable)")->allow_extra_args(false);
  sub->add_flag("--no-new-privs", o.no_new_privs, "set no_new_privileges");
  sub->add_flag("-d,--detach", a->detach, "detach from the process");
  sub->add_option("--pid-file", a->pid_file, "write the process pid here");
  sub->add_option("--console-socket", a->console_socket, "AF_UNIX socket that receives the pty master");
  sub->add_option("--preserve-fds", a->preserve_fds, "pass N extra fds");
  sub->add_option("--process-label,--apparmor,--cgroup", a->ignored, "accepted for runc compatibility");
  sub->prefix_command();
  *self = sub;
}

}  // namespace sandshim::cli
