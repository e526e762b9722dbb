// OCI hooks: each runs with the container's state JSON on stdin, its own env and a timeout.
// docker's networking is a prestart hook (libnetwork-setkey), so a failing one fails create.
#pragma once

#include <string>

#include "bundle/spec.h"

namespace sandshim::native {

// kind: prestart, createRuntime, createContainer, startContainer, poststart, poststop.
Status RunHooks(const bundle::Spec& spec, std::string_view kind, const std::string& state_json);

}  // namespace sandshim::native
