// OCI hooks of a gVisor container, run by sandshim rather than runsc. runsc would run them
// with the state of the container it knows: sandshim's derived id (sshim-…) and the private
// bundle in the state dir, so a hook that keys on the id or reads the bundle (docker's
// libnetwork-setkey, nvidia's, any logging hook) saw the wrong container. The runtime-side
// kinds are taken out of the spec runsc gets and run here with the container's own id and
// the caller's bundle, at the points runc runs them:
//   prestart, createRuntime  after `runsc create` (the sandbox pid exists), failure fails create
//   poststart                after `runsc start`, failure is a warning
//   poststop                 after the container is destroyed, failure is a warning
// createContainer and startContainer run inside the container's namespaces: runsc keeps them.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>

#include <boost/json.hpp>

#include "shim/core/result.h"
#include "shim/runtime/record.h"

namespace sandshim::runtime {

// Removes the kinds above from a spec document (the one runsc gets). Pure.
void StripRuntimeHooks(boost::json::object& doc);

// The OCI state a hook reads (runc's shape): the record's id, bundle and annotations, with
// status and pid as given.
std::string HookStateOf(const ContainerRecord& rec, std::string_view status, pid_t pid);

// Runs the spec's hooks of kind (loaded from the caller's bundle; none if it cannot be
// loaded any more) through the one runner both backends use (native::RunLifecycleHooks:
// runc's failure semantics, status and annotations).
Status RunBundleHooks(const std::filesystem::path& bundle, std::string_view kind, const std::string& state);

}  // namespace sandshim::runtime
