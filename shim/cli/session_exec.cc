// `session exec ID [flags] -- CMD...`: run a command in a session; its exit status is ours.
#include "bundle/process.h"
#include "shim/cli/session_common.h"

namespace sandshim::cli {

void RegisterSessionExec(Verbs& v, CLI::App* parent) {
  auto o = std::make_shared<bundle::ExecOverrides>();
  auto self = std::make_shared<CLI::App*>(nullptr);
  auto* sub = v.Add("exec", "run a command in a session", [&v, o, self] {
    auto rest = (*self)->remaining();
    if (!rest.empty() && rest.front() == "--") rest.erase(rest.begin());
    if (rest.size() < 2) return ExitWith(Status(MakeError("session exec: usage: session exec ID -- CMD [ARG...]", EINVAL)));
    std::string id = rest.front();
    rest.erase(rest.begin());
    if (!rest.empty() && rest.front() == "--") rest.erase(rest.begin());
    auto s = OpenSessions(v.global);
    if (!s) return ExitWith(Status(s.error()));
    bundle::ExecOverrides ov = *o;
    ov.args = std::move(rest);
    auto status = s->Exec(id, ov);
    if (!status) return ExitWith(Status(status.error().Wrap("session exec " + id)));
    return *status;
  }, parent);
  sub->add_option("--cwd", o->cwd, "working directory (default: the workspace)");
  sub->add_option("-e,--env", o->env, "KEY=VALUE (repeatable)")->allow_extra_args(false);
  sub->add_option("-u,--user", o->user, "uid[:gid]");
  sub->prefix_command();
  *self = sub;
}

}  // namespace sandshim::cli
