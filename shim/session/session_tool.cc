// Sessions::StartTool: the one way session files (files.h) run a program in a session.
#include "shim/session/contexts/contexts.h"
#include "shim/session/sessions.h"

namespace sandshim::session {

Result<std::unique_ptr<proc::Running>> Sessions::StartTool(const SessionRecord& r, const std::vector<std::string>& argv,
                                                           const std::string& user, const runtime::ExecStdio& io) {
  MarkUsed(r.id);
  auto target = TRY(ExecTargetFor(Dir(r.id), r, ""));
  auto spec = TRY(bundle::LoadSpec(target.bundle));
  bundle::ExecOverrides ov;
  ov.args = argv;
  ov.user = user;
  runtime::ExecRequest req;
  req.process = TRY(bundle::ProcessFromOverrides(spec, ov));
  return containers_.StartExec(target.container_id, req, io);
}

}  // namespace sandshim::session
