// File rules as mounts (#33, docs/POLICY.md): a file(read:P) deny rule becomes a masked path
// (an empty read-only file or directory bound over P) and a file(write:P) deny rule a
// read-only bind of P, both in the session's spec, so every program in the sandbox meets
// them whatever it is called and however it names P (links, /proc/self/root/..., a
// directory read whole). Both backends apply linux.maskedPaths and linux.readonlyPaths
// (native: mounts.cc; gVisor: gvisor_path_masks.h). Only a rule naming one path can be a
// mount: P, P/** or P:*. A rule with a wildcard elsewhere stays with the command policy.
#pragma once

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "bundle/session_spec.h"
#include "shim/core/result.h"
#include "shim/policy/rules.h"

namespace sandshim::session {

struct PolicyMounts {
  std::vector<std::string> masked, readonly;  // paths in the sandbox
  std::vector<std::string> advisory;          // deny file rules no mount can express
};

// The mounts a policy's deny file rules become.
PolicyMounts FileRuleMounts(const policy::Policy& p);

// Adds them to spec's linux.maskedPaths/readonlyPaths, with every hard link in the workspace
// to a file they name (found at create: a link made earlier is another path to the same
// file). SANDSHIM_TEST_NO_POLICY_MOUNTS=1 (the policy suite's positive control) adds none.
Status AddPolicyMounts(boost::json::object& spec, const bundle::SessionProfile& p);

}  // namespace sandshim::session
