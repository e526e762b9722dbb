// Sessions for agent platforms: one command from a workspace directory to a running sandbox,
// then many execs, then delete. A session is a container ("sess-<id>") whose bundle sandshim
// writes from a SessionProfile, plus a record under <root>/@sessions/<id>/.
#pragma once

#include <string>
#include <vector>

#include "bundle/process.h"
#include "bundle/session_spec.h"
#include "shim/runtime/containers.h"

namespace sandshim::session {

struct SessionRecord {
  std::string id, container_id, backend, workspace, rootfs, created, last_used;
  std::string status;  // the container's live status
};

class Sessions {
 public:
  explicit Sessions(runtime::Options o);
  Result<SessionRecord> Create(const std::string& id, const bundle::SessionProfile& p);
  // Runs argv in the session; returns its exit status (for gVisor this process becomes the
  // command and never returns on success).
  Result<int> Exec(const std::string& id, const bundle::ExecOverrides& o);
  Result<SessionRecord> Get(const std::string& id);
  std::vector<SessionRecord> List();
  Status Delete(const std::string& id);

 private:
  std::filesystem::path Dir(const std::string& id) const { return root_ / "@sessions" / id; }
  Status Save(const SessionRecord& r);

  std::filesystem::path root_;
  runtime::Containers containers_;
};

}  // namespace sandshim::session
