#include "shim/session/contexts/context_record.h"

#include "bundle/described.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {

boost::json::object ContextToJson(const ContextRecord& r) { return bundle::WriteDescribed(r); }

Result<ContextRecord> ContextFromJson(const boost::json::value& v) {
  if (!v.is_object()) return MakeError("context record is not a JSON object", EINVAL);
  auto r = TRY(bundle::ReadDescribed<ContextRecord>(bundle::Fields(v.as_object(), std::string(layout::kContextRecord.rel))));
  if (r.name.empty() || r.container_id.empty()) return MakeError("context record has no name or container", EINVAL);
  return r;
}

}  // namespace sandshim::session
