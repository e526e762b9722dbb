// Spec changes that make runsc do what runc would. Pure, on the JSON document.
//  - linux.resources.pids.limit: on the host, the sandbox's own threads and the ptrace
//    platform's stubs count against it (an idle sandbox is ~25 tasks), so a small docker
//    --pids-limit stops the sandbox from starting at all. gVisor enforces RLIMIT_NPROC inside
//    the sandbox instead, for root without CAP_SYS_RESOURCE too: the limit moves there.
#pragma once

#include <boost/json.hpp>

namespace sandshim::runsc {

// Returns true when doc changed.
bool FixupSpec(boost::json::object& doc);

}  // namespace sandshim::runsc
