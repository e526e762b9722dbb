// What sandshim remembers about a credential context
// (<session dir>/contexts/<name>/context.json, mode 0600): its name, its container, its user
// and the names (never the values) of its environment. Pure conversion, read strictly.
#pragma once

#include <boost/describe.hpp>
#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::session {

struct ContextRecord {
  std::string name, container_id, created;  // created: RFC 3339
  uint64_t uid = 0, gid = 0;
  std::vector<std::string> env_keys, allow_domains, deny_domains;
  bool trusted = false;  // --trusted: treats the workspace as data (trusted_context.h)
  // Not stored: the container's live status.
  std::string status;
};
BOOST_DESCRIBE_STRUCT(ContextRecord, (), (name, container_id, created, uid, gid, env_keys, allow_domains, deny_domains, trusted))

boost::json::object ContextToJson(const ContextRecord& r);
Result<ContextRecord> ContextFromJson(const boost::json::value& v);

}  // namespace sandshim::session
