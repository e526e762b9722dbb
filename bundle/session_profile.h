// A session profile as JSON: what a platform writes once (its policy) and passes to every
// `session create --profile FILE`; flags given on the command line win over it. The same
// shape, minus environment values, is kept in the session record so `inspect` can show it.
//
//   {"rootfs": "/var/lib/sandshim/rootfs/...", "workspace_dest": "/workspace",
//    "env": {"LANG": "C.UTF-8"}, "proxy": "http://proxy:3128", "user": "1000:1000",
//    "hostname": "sandbox", "memory": "1g", "cpus": 1.5, "pids": 256, "network": "none",
//    "tmp_size": "256m", "mounts": ["/data:/data:ro"], "writable_layer": true,
//    "exec_timeout": "10m", "image": "docker:python:3",
//    "allow_domains": ["pypi.org"], "deny_domains": ["*.evil.com"], "allow_cidrs": [],
//    "allow_private": false, "network_policy": {"allowedDomains": [...], "allowedRegistries": ["pypi"]}}
// ("network": "proxy" makes the allow/deny lists and network_policy the session's egress rules.)
#pragma once

#include <boost/json.hpp>
#include <chrono>
#include <string>

#include "bundle/session_spec.h"

namespace sandshim::bundle {

// Fields of a profile file that are not part of the bundle.
struct ProfileExtras {
  std::chrono::milliseconds exec_timeout{0};  // 0: none
  std::string image;                          // a rootfs-builder source, instead of rootfs
};

// Overlays the keys present in `doc` onto p (and extras); unknown keys are an error, so a
// typo in a policy file never silently weakens it.
Status ApplyProfileJson(const boost::json::object& doc, SessionProfile* p, ProfileExtras* extras);
Status LoadProfileFile(const std::string& path, SessionProfile* p, ProfileExtras* extras);
// The profile for records and `inspect`: environment keys only, never values.
boost::json::object ProfileSummary(const SessionProfile& p);
// Parses durations like "90s", "10m", "2h", "1d", "250ms" (a bare number is seconds).
Result<std::chrono::milliseconds> ParseDuration(std::string_view s);

}  // namespace sandshim::bundle
