#include "shim/runtime/backend_data.h"

#include "bundle/json_field.h"

namespace sandshim::runtime {
namespace json = boost::json;

static json::array ToArray(const std::vector<std::string>& v) { return json::array(v.begin(), v.end()); }

json::object BackendDataToJson(const BackendData& d) {
  if (const auto* g = std::get_if<GvisorData>(&d))
    return {{"flags", ToArray(g->flags)}, {"platform", g->platform},   {"network", g->network},
            {"cgroups_path", g->cgroups_path}, {"control", g->control}, {"control_netns", g->control_netns}};
  if (const auto* n = std::get_if<NativeData>(&d))
    return {{"cgroups", ToArray(n->cgroups)}, {"fifo", n->fifo}, {"keyring", n->keyring}};
  return {};
}

static Result<GvisorData> GvisorFrom(const bundle::Fields& f) {
  return GvisorData{TRY(f.Strings("flags")),        TRY(f.StringOr("platform")), TRY(f.StringOr("network")),
                    TRY(f.StringOr("cgroups_path")), TRY(f.StringOr("control")), TRY(f.StringOr("control_netns"))};
}

static Result<NativeData> NativeFrom(const bundle::Fields& f) {
  return NativeData{TRY(f.Strings("cgroups")), TRY(f.StringOr("fifo")), TRY(f.StringOr("keyring"))};
}

Result<BackendData> BackendDataFromJson(std::string_view backend, const json::object& o, std::string_view doc) {
  if (o.empty()) return BackendData{};
  bundle::Fields f(o, std::string(doc), "backend_data");
  if (backend == "gvisor") return BackendData{TRY(GvisorFrom(f))};
  if (backend == "native") return BackendData{TRY(NativeFrom(f))};
  return BackendData{};
}

const GvisorData& GvisorOf(const BackendData& d) {
  static const GvisorData kNone;
  const auto* g = std::get_if<GvisorData>(&d);
  return g ? *g : kNone;
}

const NativeData& NativeOf(const BackendData& d) {
  static const NativeData kNone;
  const auto* n = std::get_if<NativeData>(&d);
  return n ? *n : kNone;
}

}  // namespace sandshim::runtime
