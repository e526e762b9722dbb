// The container's device policy (linux.resources.devices plus what runc always allows) as
// one rule list, and its cgroup v2 form: an eBPF BPF_CGROUP_DEVICE program, hand-assembled
// (as runc's devicefilter and crun's ebpf.c do; no libbpf), attached to the container's
// cgroup on the cgroup2 hierarchy. Without it a v2 container with CAP_MKNOD opens any device
// (review C1). On this hybrid host the v1 devices controller applies as well; the program is
// attached on the unified hierarchy too, so either alone holds.
//
// The program is pure data (unit-tested instruction by instruction); load and attach go
// through Sys::Bpf.
#pragma once

#include <linux/bpf.h>

#include <boost/json.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "shim/core/result.h"
#include "shim/linux/sys.h"

namespace sandshim::native {

struct DeviceRule {
  char type = 'a';          // 'a' (any), 'b', 'c'
  int64_t major = -1;       // -1: any
  int64_t minor = -1;
  std::string access = "rwm";
  bool allow = false;
};

// The spec's rules in order, then runc's unconditional allows (mknod of anything, the
// default devices, ptys, tun). Later rules win, as with v1 devices.allow/deny writes.
std::vector<DeviceRule> DeviceRules(const boost::json::object* resources);
// "c 1:3 rwm" / "a": the v1 devices.allow / devices.deny line.
std::string V1Rule(const DeviceRule& r);

// The program: the last matching rule decides; no match denies.
std::vector<bpf_insn> DeviceFilterProgram(const std::vector<DeviceRule>& rules);

// Loads prog and attaches it to the cgroup2 directory dir (BPF_F_ALLOW_MULTI: programs of
// parent cgroups still apply; the program lives as long as the cgroup).
Status AttachDeviceFilter(Sys& sys, const std::filesystem::path& dir, const std::vector<bpf_insn>& prog);
// For `update`: attaches prog, then detaches the device programs that were there before
// (programs are ANDed, so a stale one would keep denying what the new rules allow). The
// new one is attached first: there is no moment without a filter.
Status ReplaceDeviceFilter(Sys& sys, const std::filesystem::path& dir, const std::vector<bpf_insn>& prog);

}  // namespace sandshim::native
