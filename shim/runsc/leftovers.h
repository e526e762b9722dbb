// What runsc leaves behind and `runsc delete --force` does not remove (measured on this
// host): sandbox and gofer processes of a failed create or a killed `runsc run`, the lock and
// state files in runsc's root, and the container's cgroup directories. Each sweep is
// idempotent and safe when there is nothing to do.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::runsc {

struct Owner {
  std::filesystem::path runsc_root;
  std::string id;
  std::filesystem::path bundle;  // the gofer's command line names only the bundle
};

// True when argv is a runsc process (sandbox, gofer, exec, or runsc itself) of this owner.
// Pure: unit-tested on recorded command lines.
bool BelongsTo(const std::vector<std::string>& argv, const Owner& o);
// SIGKILLs every live process that BelongsTo(o) and waits briefly for them to go.
Status KillProcesses(const Owner& o);
// True if runsc's root holds a state or lock file of this container.
bool HasStateFiles(const Owner& o);
// Removes <root>/<id>_sandbox:*.{lock,state} and similar files runsc keeps for this id.
Status RemoveStateFiles(const Owner& o);
// Removes the container's cgroup in every mounted hierarchy (v1 controllers and v2).
// cgroups_path as in the spec; systemd "slice:prefix:name" paths are left alone.
Status RemoveCgroups(const std::string& cgroups_path);

}  // namespace sandshim::runsc
