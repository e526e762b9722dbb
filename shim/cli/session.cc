// `session`: sandboxes for agent platforms (create, exec, list, delete).
#include "shim/cli/session_common.h"

namespace sandshim::cli {

Result<session::Sessions> OpenSessions(const GlobalOpts& g) { return session::Sessions(TRY(RuntimeOptions(g))); }

boost::json::object SessionJson(const session::SessionRecord& r) {
  return {{"id", r.id},         {"container_id", r.container_id}, {"backend", r.backend}, {"status", r.status},
          {"workspace", r.workspace}, {"rootfs", r.rootfs},       {"created", r.created}, {"last_used", r.last_used}};
}

void RegisterSession(Verbs& v) {
  CLI::App* s = v.app.add_subcommand("session", "sandboxes around a workspace: create, exec, list, delete");
  s->require_subcommand(1);
  RegisterSessionCreate(v, s);
  RegisterSessionExec(v, s);
  RegisterSessionList(v, s);
  RegisterSessionDelete(v, s);
}

}  // namespace sandshim::cli
