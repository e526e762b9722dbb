// Which isolation a container gets. Precedence: the --backend flag, then the config file,
// then the container's dev.sandshim.backend annotation. An annotation is set by whoever
// starts the container (docker --annotation, pod annotations), not by the operator, so it
// may only ask for more isolation: "gvisor" is honoured, "native" only when the operator's
// config sets allow_annotation_downgrade (it never overrides an explicit choice). "auto"
// takes gVisor when runsc works here, else native, and says so; "gvisor" fails closed, and so
// does "auto" when the config forces a runsc platform (an explicit choice of gVisor).
#pragma once

#include <string>
#include <string_view>

#include "shim/core/result.h"

namespace sandshim::runtime {

inline constexpr const char* kBackendAnnotation = "dev.sandshim.backend";

// What the layers above need to know about a backend, so that none of them compares names.
struct BackendTraits {
  // sandshim must run from a sealed copy of itself (self_clone.h) before it makes or joins
  // such a container: its processes see ours (native).
  bool runs_sealed = false;
  // The container's memory limit is enforced inside the sandbox (gVisor's Sentry), so a
  // session's profile sets it there.
  bool memory_limited_inside = false;
  // How a session gets a writable root over a read-only base: "overlayfs" (mounted on the
  // host by the session) or "gvisor-overlay" (runsc's in-memory overlay, a runsc flag).
  std::string writable_layer;
  // A session can get a user namespace of its own through idmapped mounts (native).
  bool idmapped_sessions = false;
  // A session's credential contexts are containers in the session's own sandbox, one kernel
  // for all (gVisor: runsc's multi-container sandbox, reached through a broker init, with
  // warm spares); else each context is namespaces of its own on the host (native).
  bool contexts_in_sandbox = false;
  // A bind made below the workspace after the sandbox started shows inside only through a
  // shared mount made before it boots (gVisor's gofer keeps a copy of the mount tree): a pool
  // member's workspace parent.
  bool late_binds_need_shared_parent = false;
  // What the container is dies with the kernel (cgroups and processes: native), so its state
  // needs an fsync only when a hook did something that outlives it. Else (runsc's state
  // files) always.
  bool state_dies_with_kernel = false;
};

// Pure: the traits of "gvisor" or "native" (of anything else: none set).
BackendTraits TraitsOf(std::string_view backend);

// Re-executes this process from a sealed copy when the backend needs it (see runs_sealed).
// The verbs call it at their top, before any state exists, where it can be seen.
void EnsureSealedFor(const BackendTraits& t);

struct BackendChoice {
  std::string backend;  // "gvisor" | "native"
  std::string reason;   // shown in logs, state annotations and inspect
  bool fallback = false;  // auto chose native because gVisor cannot run
  BackendTraits traits;   // TraitsOf(backend)
};

struct SelectInput {
  std::string flag;        // --backend ("" if not given)
  std::string config;      // config file's backend ("auto" by default)
  std::string annotation;  // spec annotation ("" if absent)
  bool annotation_may_downgrade = false;  // config allow_annotation_downgrade
  bool gvisor_usable = false;
  std::string gvisor_problem;  // why not, when not usable
  // The config's "platform" (empty: sandshim's probe chooses). Naming one is an explicit
  // gVisor choice: auto then fails closed when it cannot boot, never lands on native.
  std::string gvisor_forced_platform;
  bool native_available = false;
};

// Pure; table-tested.
Result<BackendChoice> SelectBackend(const SelectInput& in);

}  // namespace sandshim::runtime
