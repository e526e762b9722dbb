// The OCI runtime-spec model. A Spec keeps the whole config.json document (so fields sandshim
// does not know survive a rewrite untouched) plus typed views of the parts sandshim reads.
// Boost.JSON errors are caught here and become Result errors.
#pragma once

#include <boost/json.hpp>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::bundle {

struct Namespace {
  std::string type;  // pid, network, mount, ipc, uts, user, cgroup
  std::string path;  // empty: create a new one
};

struct Spec {
  boost::json::object doc;  // the document as read, unknown fields included
  std::string oci_version;
  std::string root_path;  // as written: may be relative to the bundle
  bool root_readonly = false;
  bool has_process = false;
  bool terminal = false;
  std::vector<std::string> args;
  std::string cwd;
  std::vector<Namespace> namespaces;
  std::map<std::string, std::string> annotations;
  std::string cgroups_path;
  std::vector<std::string> bounding_caps;
  std::string hostname;
};

Result<Spec> ParseSpec(std::string_view json_text);
// Reads <bundle>/config.json.
Result<Spec> LoadSpec(const std::filesystem::path& bundle_dir);
std::string Serialize(const Spec& spec);

const Namespace* FindNamespace(const Spec& spec, std::string_view type);
// The rootfs as an absolute path (root.path resolved against the bundle directory).
std::filesystem::path RootfsPath(const Spec& spec, const std::filesystem::path& bundle_dir);

// Helpers for reading JSON leniently: a missing or mistyped field reads as the default.
std::string GetString(const boost::json::object& o, std::string_view key, std::string def = "");
bool GetBool(const boost::json::object& o, std::string_view key, bool def = false);
const boost::json::object* GetObject(const boost::json::object& o, std::string_view key);
const boost::json::array* GetArray(const boost::json::object& o, std::string_view key);
std::vector<std::string> GetStrings(const boost::json::object& o, std::string_view key);
Result<boost::json::value> ParseJson(std::string_view text, std::string_view what);

}  // namespace sandshim::bundle
