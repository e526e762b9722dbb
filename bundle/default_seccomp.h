// The default seccomp profile: the same decisions as Docker's default profile (moby
// profiles/seccomp/default.json, as of Docker 25: io_uring no longer allowed), written here
// as our own tables and turned into an OCI `linux.seccomp` object for the machine we run on.
// Default action ERRNO(EPERM); an allowlist; argument conditions for socket (no AF_VSOCK),
// personality (the five harmless personas) and clone (no namespace flags); clone3 answers
// ENOSYS so libcs fall back to clone, whose flags can be checked; and rules that depend on
// the capabilities the process keeps (a container with CAP_SYS_ADMIN may mount, and so on).
// Used by `sandshim spec` bundles and by sessions; see docs/SECCOMP.md.
#pragma once

#include <boost/json.hpp>
#include <string>
#include <vector>

namespace sandshim::bundle {

// `bounding` is the process's bounding set (as Docker decides on it): capability-dependent
// rules are included or excluded from it. Pure.
boost::json::object DefaultSeccomp(const std::vector<std::string>& bounding);

}  // namespace sandshim::bundle
