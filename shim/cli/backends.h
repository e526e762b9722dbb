// The composition root of the runtime: which backends a Containers drives, and how each is
// made. The agnostic runtime (shim/runtime) names no backend; this is the one place that
// names them all. Add a backend here, and nowhere in runtime/.
#pragma once

#include "shim/runsc/control_netns.h"
#include "shim/runtime/containers.h"

namespace sandshim::cli {

// gVisor (first: the default for a record naming no backend this binary knows) and native.
// netns makes the gVisor sandboxes' private control namespaces (CAP_SYS_ADMIN); only unit
// tests over a fake runsc pass another (tests/fakes/caller_netns.h). It must outlive every
// Containers made from the factory.
runtime::BackendFactory Backends(runsc::ControlNetnsKeeper& netns = runsc::SystemControlNetns());

}  // namespace sandshim::cli
