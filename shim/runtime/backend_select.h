// Which isolation a container gets. Precedence: the --backend flag, then the config file,
// then the container's dev.sandshim.backend annotation. An annotation is set by whoever
// starts the container (docker --annotation, pod annotations), not by the operator, so it
// may only ask for more isolation: "gvisor" is honoured, "native" only when the operator's
// config sets allow_annotation_downgrade (it never overrides an explicit choice). "auto"
// takes gVisor when runsc works here, else native, and says so; "gvisor" fails closed.
#pragma once

#include <string>

#include "shim/core/result.h"

namespace sandshim::runtime {

inline constexpr const char* kBackendAnnotation = "dev.sandshim.backend";

struct BackendChoice {
  std::string backend;  // "gvisor" | "native"
  std::string reason;   // shown in logs, state annotations and inspect
  bool fallback = false;  // auto chose native because gVisor cannot run
};

struct SelectInput {
  std::string flag;        // --backend ("" if not given)
  std::string config;      // config file's backend ("auto" by default)
  std::string annotation;  // spec annotation ("" if absent)
  bool annotation_may_downgrade = false;  // config allow_annotation_downgrade
  bool gvisor_usable = false;
  std::string gvisor_problem;  // why not, when not usable
  bool native_available = false;
};

// Pure; table-tested.
Result<BackendChoice> SelectBackend(const SelectInput& in);

}  // namespace sandshim::runtime
