// Kubernetes pods on gVisor: which part of a pod a container is, read from the annotations
// containerd's CRI plugin (and CRI-O) put in every spec, and the rewrite that lets runsc put
// all of a pod's containers in the pod sandbox's one gVisor sandbox.
//
// runsc reads the same annotations: a spec whose type is "container" joins the sandbox
// named by the sandbox-id annotation instead of starting its own. runsc knows sandshim's
// containers by derived ids (GvisorBackend::RunscId), so that annotation must name the
// derived id of the pod sandbox (the pause container), not the CRI's.
#pragma once

#include <map>
#include <string>

#include <boost/json.hpp>

namespace sandshim::runsc {

enum class PodRole { kNone, kSandbox, kContainer };

struct PodInfo {
  PodRole role = PodRole::kNone;
  std::string sandbox_id;  // the pod sandbox's container id (the CRI's, not runsc's)
};

// From the spec's annotations (containerd: io.kubernetes.cri.*, CRI-O: io.kubernetes.cri-o.*).
// Pure.
PodInfo PodInfoOf(const std::map<std::string, std::string>& annotations);

// Sets the sandbox-id annotation(s) present in the spec document to runsc_sandbox_id. Pure.
void RewriteSandboxId(boost::json::object& doc, const std::string& runsc_sandbox_id);

// A pod's app container whose spec joins a PID namespace by path (the pod shares one:
// kubelet's shareProcessNamespace, or a CRI client that leaves the container's PID mode at
// POD) gets its own instead. runsc shares a namespace by that path among the pod's app
// containers only (the pause container is not among them), so the first app container would
// be the namespace's init, and stopping it would SIGKILL every later one. Pure.
void UnsharePidNamespace(boost::json::object& doc);

}  // namespace sandshim::runsc
