#include "shim/gvisor/spec_plan.h"

#include <sys/stat.h>

#include <algorithm>

#include "shim/core/fs.h"
#include "shim/gvisor/gvisor_hooks.h"
#include "shim/gvisor/spec_fixups.h"
#include "shim/runsc/flags.h"
#include "shim/runsc/pod.h"

namespace sandshim::runtime {
namespace json = boost::json;
namespace {

// runsc's --overlay/--overlay2 keep the rootfs's writes in the sandbox.
bool UsesOverlay(const std::vector<std::string>& flags) {
  return std::any_of(flags.begin(), flags.end(), [](const std::string& f) {
    auto name = runsc::FlagName(f);
    return (name == "overlay" || name == "overlay2") && f.find("=false") == std::string::npos &&
           f.find("=none") == std::string::npos;
  });
}

// runsc starts the sandbox of a --network=host container that names no network namespace in
// runsc's own namespace, which is the private control namespace: such a spec is given
// sandshim's namespace by path.
void JoinHostNetns(json::object& doc, const std::string& host_netns) {
  auto* lx = doc.if_contains("linux") ? doc["linux"].if_object() : nullptr;
  if (!lx) lx = &(doc["linux"] = json::object()).get_object();
  auto* nss = lx->if_contains("namespaces") ? (*lx)["namespaces"].if_array() : nullptr;
  if (!nss) nss = &((*lx)["namespaces"] = json::array()).get_array();
  nss->push_back(json::object{{"type", "network"}, {"path", host_netns}});
}

void AbsoluteSources(json::object& doc, const std::filesystem::path& bundle, const SpecFacts& facts) {
  auto* mounts = doc.if_contains("mounts") ? doc["mounts"].if_array() : nullptr;
  if (!mounts) return;
  for (auto& m : *mounts) {
    auto* o = m.if_object();
    std::string src = o ? bundle::GetString(*o, "source") : "";
    if (!src.empty() && src[0] != '/' && facts.in_bundle(src)) (*o)["source"] = (bundle / src).string();
  }
}

}  // namespace

SpecPlan PlanSpec(const bundle::Spec& spec, const SpecPlanInput& in, const SpecFacts& facts) {
  SpecPlan plan;
  json::object& doc = plan.doc = spec.doc;
  if (!in.pod_sandbox_runsc_id.empty()) {
    runsc::RewriteSandboxId(doc, in.pod_sandbox_runsc_id);
    runsc::UnsharePidNamespace(doc);
  }
  if (in.take_blkio_weights) plan.blkio_weights = TakeBlkioWeights(doc);
  FixupSpec(doc);
  if (in.hooks_by_sandshim) StripRuntimeHooks(doc);
  if (runsc::EffectiveNetwork(in.flags) == "host" && !bundle::FindNamespace(spec, "network"))
    JoinHostNetns(doc, in.host_netns);
  auto rootfs = bundle::RootfsPath(spec, in.bundle);
  if (auto* root = doc.if_contains("root") ? doc["root"].if_object() : nullptr) (*root)["path"] = rootfs.string();
  if (!MountsTmp(doc) && !UsesOverlay(in.flags) && facts.image_tmp_is_dir) BindImageTmp(doc, rootfs / "tmp");
  AbsoluteSources(doc, in.bundle, facts);
  auto empty_file = (in.out_dir / "masked-file").string();
  auto masks = PathMaskMounts(spec, facts.lookup, empty_file, (in.out_dir / "masked-dir").string());
  for (auto& m : SentryDeviceMasks(spec, empty_file)) masks.push_back(std::move(m));
  if (!masks.empty()) {
    plan.needs_mask_sources = true;
    if (!doc.if_contains("mounts") || !doc["mounts"].is_array()) doc["mounts"] = json::array{};
    for (auto& m : masks) doc["mounts"].get_array().push_back(std::move(m));
  }
  return plan;
}

Result<SpecFacts> GatherSpecFacts(const bundle::Spec& spec, const std::filesystem::path& bundle) {
  SpecFacts f;
  // Only a real directory of the image (never a symlink it planted) becomes a bind source.
  auto tmp = bundle::RootfsPath(spec, bundle) / "tmp";
  struct stat st;
  f.image_tmp_is_dir = ::lstat(tmp.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  f.in_bundle = [bundle](const std::string& rel) { return fs::Exists(bundle / rel); };
  f.lookup = TRY_CTX(HostPathLookup(spec, bundle), "masked/read-only paths");
  return f;
}

}  // namespace sandshim::runtime
