// The gVisor spec plan: the config.json runsc gets, computed from the caller's spec by one
// pure function, so that every edit sandshim makes to a gVisor container's spec is in one
// place, in order, and unit-tested without runsc or root (as native's LaunchPlan, plan.h).
// What it needs to know about the host (whether the image's /tmp is a directory, which
// relative mount sources exist, what a masked path is on the host) comes in as SpecFacts,
// gathered beforehand by GatherSpecFacts; WriteRunscBundle (gvisor_backend.cc) writes the result.
//
// The edits, in the order they apply:
//  1. a pod's app container: joins its pod sandbox (runsc/pod.h)
//  2. blockIO weights taken out for sandshim to write after create (spec_fixups.h)
//  3. runsc's fix-ups: pids limit inside, clone3's ENOSYS rule (spec_fixups.h)
//  4. runtime-side hooks taken out when sandshim runs them (gvisor_hooks.h)
//  5. --network=host without a network namespace: sandshim's namespace by path
//  6. root.path absolute
//  7. the image's own /tmp bound instead of runsc's tmpfs (spec_fixups.h)
//  8. relative bind sources made absolute against the bundle
//  9. masked and read-only paths as mounts runsc makes (gvisor_path_masks.h)
// 10. the devices the Sentry adds to /dev that the spec does not list, masked (gvisor_path_masks.h)
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "bundle/spec.h"
#include "shim/core/result.h"
#include "shim/gvisor/gvisor_path_masks.h"

namespace sandshim::runtime {

// What the plan asks of the host, answered before it runs.
struct SpecFacts {
  // The rootfs's /tmp is a real directory (never a symlink the image planted).
  bool image_tmp_is_dir = false;
  // A relative mount source names something in the bundle directory.
  std::function<bool(const std::string& rel)> in_bundle = [](const std::string&) { return false; };
  // What a masked or read-only container path is on the host (PathMaskMounts).
  HostLookup lookup = [](const std::string&) { return HostPath{}; };
};

struct SpecPlanInput {
  std::filesystem::path bundle;      // the caller's bundle directory
  std::filesystem::path out_dir;     // where the runsc bundle is written (the masks' sources)
  std::vector<std::string> flags;    // the container's runsc flags (runsc::PolicyFlags)
  std::string host_netns;            // a path to the namespace sandshim runs in (edit 5)
  bool hooks_by_sandshim = false;    // edit 4
  bool take_blkio_weights = false;   // edit 2 (create; run and pods leave them to runsc)
  std::string pod_sandbox_runsc_id;  // edit 1: not empty for a pod's app container
};

struct SpecPlan {
  boost::json::object doc;            // config.json for runsc
  boost::json::object blkio_weights;  // written by sandshim after create (empty: none)
  // The masks' sources out_dir/masked-file and out_dir/masked-dir are needed (edit 9).
  bool needs_mask_sources = false;
};

// Pure: no I/O but through facts.
SpecPlan PlanSpec(const bundle::Spec& spec, const SpecPlanInput& in, const SpecFacts& facts);

// The facts for spec in bundle, from the host: the rootfs and bind sources opened beneath
// (openat2 RESOLVE_IN_ROOT), so an image's symlink never names a host path. The lookup keeps
// the rootfs open while facts live.
Result<SpecFacts> GatherSpecFacts(const bundle::Spec& spec, const std::filesystem::path& bundle);

}  // namespace sandshim::runtime
