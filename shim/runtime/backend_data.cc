#include "shim/runtime/backend_data.h"

#include "bundle/described.h"

namespace sandshim::runtime {
namespace json = boost::json;

// The JSON keys are the member names (BOOST_DESCRIBE_STRUCT in the header), as they always were.
json::object BackendDataToJson(const BackendData& d) {
  if (const auto* g = std::get_if<GvisorData>(&d)) return bundle::WriteDescribed(*g);
  if (const auto* n = std::get_if<NativeData>(&d)) return bundle::WriteDescribed(*n);
  return {};
}

Result<BackendData> BackendDataFromJson(std::string_view backend, const json::object& o, std::string_view doc) {
  if (o.empty()) return BackendData{};
  bundle::Fields f(o, std::string(doc), "backend_data");
  if (backend == "gvisor") return BackendData{TRY(bundle::ReadDescribed<GvisorData>(f))};
  if (backend == "native") return BackendData{TRY(bundle::ReadDescribed<NativeData>(f))};
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
