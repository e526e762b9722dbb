// The programs session files (files.h) run in a session: started with our descriptors,
// stderr kept in a memfd so a failure reads as the program's own one line.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "shim/core/unique_fd.h"
#include "shim/session/files/files.h"

namespace sandshim::session {

struct ToolRun {
  std::unique_ptr<proc::Running> cmd;
  UniqueFd err;
  std::string what;  // for errors and the audit: "read /workspace/x"
};

// in_fd/out_fd: -1 for an empty stdin / a discarded stdout.
Result<ToolRun> StartFilesTool(Sessions& s, const SessionRecord& r, const std::vector<std::string>& argv,
                               const FilesOptions& o, int in_fd, int out_fd, std::string what);
// Reaps the program and audits the operation; a non-zero exit is an error carrying the first
// line the program wrote to stderr (ENOENT when it says there is no such file).
Status FinishFilesTool(const SessionRecord& r, ToolRun& t);
// Ends the program (a host-side failure while it still writes) and reaps it.
void AbandonFilesTool(ToolRun& t);

}  // namespace sandshim::session
