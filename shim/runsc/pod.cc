#include "shim/runsc/pod.h"

#include <array>
#include <string_view>

namespace sandshim::runsc {
namespace json = boost::json;
namespace {

struct Keys {
  std::string_view type, sandbox_id;
  std::string_view sandbox_value, container_value;
};
// containerd's CRI plugin, then CRI-O: the names runsc itself reads (specutils).
constexpr std::array<Keys, 2> kKeys{{
    {"io.kubernetes.cri.container-type", "io.kubernetes.cri.sandbox-id", "sandbox", "container"},
    {"io.kubernetes.cri-o.ContainerType", "io.kubernetes.cri-o.SandboxID", "sandbox", "container"},
}};

std::string StringAt(const std::map<std::string, std::string>& m, std::string_view key) {
  auto it = m.find(std::string(key));
  return it == m.end() ? "" : it->second;
}

}  // namespace

PodInfo PodInfoOf(const std::map<std::string, std::string>& annotations) {
  for (const auto& k : kKeys) {
    auto type = StringAt(annotations, k.type);
    if (type.empty()) continue;
    PodInfo info;
    info.sandbox_id = StringAt(annotations, k.sandbox_id);
    if (type == k.sandbox_value) info.role = PodRole::kSandbox;
    // A container without a sandbox id has nothing to join: runsc would start it alone.
    else if (type == k.container_value && !info.sandbox_id.empty()) info.role = PodRole::kContainer;
    return info;
  }
  return {};
}

void RewriteSandboxId(json::object& doc, const std::string& runsc_sandbox_id) {
  auto* a = doc.if_contains("annotations") ? doc["annotations"].if_object() : nullptr;
  if (!a) return;
  for (const auto& k : kKeys)
    if (a->contains(k.sandbox_id)) (*a)[k.sandbox_id] = runsc_sandbox_id;
}

void UnsharePidNamespace(json::object& doc) {
  auto* lx = doc.if_contains("linux") ? doc["linux"].if_object() : nullptr;
  auto* nss = lx && lx->if_contains("namespaces") ? (*lx)["namespaces"].if_array() : nullptr;
  if (!nss) return;
  for (auto& ns : *nss)
    if (auto* o = ns.if_object(); o && o->if_contains("type") && (*o)["type"] == "pid") o->erase("path");
}

}  // namespace sandshim::runsc
