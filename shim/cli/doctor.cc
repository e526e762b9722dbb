// `doctor`: what this host supports for each backend and what to do about each gap.
#include <iostream>

#include "shim/cli/verbs.h"
#include "shim/cli/host_doctor.h"

namespace sandshim::cli {

void RegisterDoctor(Verbs& v) {
  auto json = std::make_shared<bool>(false);
  auto* sub = v.Add("doctor", "check what this host supports (gVisor, namespaces, cgroups, seccomp)", [json] {
    auto config = runtime::LoadConfig(runtime::DefaultConfigPath());
    if (!config) return ExitWith(Status(config.error()));
    auto findings = runtime::Doctor(*config);
    if (*json) {
      PrintJson(runtime::ToJson(findings));
    } else {
      for (const auto& f : findings) {
        std::cout << (f.ok ? "ok    " : "GAP   ") << f.area << ": " << f.detail << "\n";
        if (!f.advice.empty()) std::cout << "      -> " << f.advice << "\n";
      }
    }
    return findings.front().ok ? 0 : 1;  // gVisor missing is the gap that matters
  });
  sub->add_flag("--json", *json, "print the findings as JSON");
}

}  // namespace sandshim::cli
