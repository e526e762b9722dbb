// What each backend remembers about one container (the record's "backend_data"), typed: the
// backends read fields, not string keys of a JSON object, and a record whose data has the
// wrong shape fails to load with the field named ("state.json: backend_data.cgroups[0]: not
// a string") instead of reading as an empty path.
#pragma once

#include <boost/describe.hpp>
#include <boost/json.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::runtime {

struct GvisorData {
  std::vector<std::string> flags;  // runsc's global flags for this container, ours then the user's
  std::string platform;            // probed --platform (shown in the OCI state)
  std::string network;             // runsc's network mode (shown in the OCI state)
  std::string cgroups_path;        // the spec's linux.cgroupsPath (update writes under it)
  std::string control;             // the control-server protocol this sandbox speaks; empty: runsc exec only
  std::string control_netns;       // the private control network namespace; empty: recorded before it existed
  std::string pod_sandbox;         // a pod's app container: the pause container it joined (gvisor/gvisor_pod)
};
BOOST_DESCRIBE_STRUCT(GvisorData, (), (flags, platform, network, cgroups_path, control, control_netns, pod_sandbox))

struct NativeData {
  std::vector<std::string> cgroups;  // one directory per hierarchy
  std::string fifo;                  // exec.fifo that `start` opens
  std::string keyring;               // the session keyring's name; empty: --no-new-keyring
};
BOOST_DESCRIBE_STRUCT(NativeData, (), (cgroups, fifo, keyring))

// monostate: nothing recorded yet (a record saved before its backend created anything).
using BackendData = std::variant<std::monostate, GvisorData, NativeData>;

boost::json::object BackendDataToJson(const BackendData& d);
// Reads the data of the backend named `backend` ("gvisor", "native"); other names and an
// empty object read as monostate. doc/path name the field in errors.
Result<BackendData> BackendDataFromJson(std::string_view backend, const boost::json::object& o, std::string_view doc);

// The data of one backend, or an empty one when the record holds another's (or none).
const GvisorData& GvisorOf(const BackendData& d);
const NativeData& NativeOf(const BackendData& d);

}  // namespace sandshim::runtime
