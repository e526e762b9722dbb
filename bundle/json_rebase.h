// A claimed pool member moves from <pool>/members/<member>/ to <root>/@sessions/<id>/ (and its
// workspace to where the caller wants it). Mounts and open files follow a rename; the paths
// its journal, spec and pins recorded do not. Rebase rewrites them, by pure code.
#pragma once

#include <boost/json.hpp>
#include <string>

namespace sandshim::bundle {

// Replaces, in every string of v (recursively, keys untouched), the path prefix `from`
// (the whole string, or followed by '/') with `to`. Returns how many strings changed.
int RebasePaths(boost::json::value& v, const std::string& from, const std::string& to);

}  // namespace sandshim::bundle
