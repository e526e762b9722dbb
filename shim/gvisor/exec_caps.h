// What a non-root exec may keep of its capabilities. runc starts every process with an
// execve(2), after which a uid != 0 holds in its effective and permitted sets only its
// ambient ones; runsc hands a direct exec the spec's sets as they are (a uid 1000 process
// kept CapEff 0x20000420: KILL, NET_BIND_SERVICE, AUDIT_WRITE; review N11).
#pragma once

#include <boost/json.hpp>

namespace sandshim::runtime {

// process (an OCI process object) with effective = permitted = ambient when its user is not
// uid 0, ambient being what the kernel would raise (permitted and inheritable); container_caps stands in when the process names none (the exec's default). Pure.
boost::json::object ExecveCaps(boost::json::object process, const boost::json::object* container_caps);

}  // namespace sandshim::runtime
