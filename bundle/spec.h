// The OCI runtime-spec model. A Spec keeps the whole config.json document (so fields sandshim
// does not know survive a rewrite untouched) plus typed views of the parts sandshim reads.
// The typed views are read strictly (json_field.h): a field sandshim reads that has the wrong
// type fails ParseSpec with "config.json: <path>: <why>", never becomes a default.
// Boost.JSON errors are caught here and become Result errors.
#pragma once

#include <boost/json.hpp>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bundle/oci_process.h"
#include "shim/core/result.h"

namespace sandshim::bundle {

struct Namespace {
  std::string type;  // pid, network, mount, ipc, uts, user, cgroup
  std::string path;  // empty: create a new one
};

struct Mount {
  std::string destination, type, source;
  std::vector<std::string> options;
};

struct IdMapping {
  uint32_t container_id = 0, host_id = 0, size = 0;
};

struct Device {
  std::string path;
  std::string type = "c";  // c, b, u, p
  int64_t major = 0, minor = 0;
  uint32_t file_mode = 0666, uid = 0, gid = 0;
};

// linux.resources, the parts whose types are checked here (the cgroup code applies them from
// doc; a mistyped limit must not become "no limit" on the way).
struct Resources {
  std::optional<int64_t> memory_limit, memory_reservation, memory_swap;
  std::optional<uint64_t> cpu_shares, cpu_period;
  std::optional<int64_t> cpu_quota;
  std::string cpuset_cpus, cpuset_mems;
  std::optional<int64_t> pids_limit;
};

struct Spec {
  boost::json::object doc;  // the document as read, unknown fields included
  std::string oci_version;
  std::string root_path;  // as written: may be relative to the bundle
  bool root_readonly = false;
  std::optional<Process> process;  // the one copy of process.* (absent: no process object)
  std::vector<Mount> mounts;
  std::string hostname, domainname;
  std::map<std::string, std::string> annotations;
  // linux.*
  std::vector<Namespace> namespaces;
  std::string cgroups_path;
  std::vector<IdMapping> uid_mappings, gid_mappings;
  std::vector<std::string> masked_paths, readonly_paths;
  std::vector<std::pair<std::string, std::string>> sysctl;
  std::vector<Device> devices;
  Resources resources;
  std::string rootfs_propagation;
  bool has_seccomp = false;  // linux.seccomp is present (its rules are read by the native plan)
};

// linux.resources as `update --resources` or a spec holds it, read strictly: a mistyped
// limit ("memory": {"limit": "1g"}) is an error naming it (doc: path.memory.limit), never "no
// limit" on the way to the cgroup code.
Result<Resources> ResourcesFromJson(const boost::json::object& r, std::string doc, std::string path = "");

Result<Spec> ParseSpec(std::string_view json_text);
// The same from a document already in memory (one sandshim built: no text in between).
Result<Spec> SpecFromJson(boost::json::object doc);
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
