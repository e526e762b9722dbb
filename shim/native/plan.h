// LaunchPlan: everything the native runtime will do to start a container, computed from the
// OCI spec by pure code (no syscalls), so that every namespace flag, mount, id map, cap set,
// rlimit and seccomp rule is unit-tested without root. The apply steps (mounts.cc, caps.cc,
// seccomp.cc, cgroups.cc, init.cc) only carry the plan out.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bundle/spec.h"
#include "shim/linux/hooks.h"

namespace sandshim::native {

struct NsStep {
  int flag = 0;       // CLONE_NEW*
  std::string path;   // empty: create a new one
};

struct IdMap {
  uint32_t container = 0, host = 0, size = 0;
};

struct MountStep {
  std::string source;       // host path for binds (absolute), fs source otherwise
  std::string destination;  // absolute, inside the rootfs (resolved safely when applied)
  std::string type;         // "bind" for bind mounts
  unsigned long flags = 0;  // MS_* applied at mount time
  unsigned long propagation = 0;  // MS_SHARED/SLAVE/PRIVATE/UNBINDABLE (| MS_REC)
  std::string data;         // fs options such as "mode=755,size=65536k"
  bool bind = false;
  // The kernel ignores ro/nosuid/nodev/noexec when it creates a bind: they take a second,
  // remount call (one mount), and are then checked with statvfs.
  bool remount = false;
  // MOUNT_ATTR_* set on the whole tree with mount_setattr(AT_RECURSIVE): "rro", "rnosuid",
  // "rnodev", "rnoexec" (runc's options), and "ro" on an rbind (a submount of a read-only
  // volume must not stay writable).
  uint64_t recursive_attrs = 0;
  // "tmpcopyup" on a tmpfs: it starts with a copy of what it covers (copy_up.h).
  bool copy_up = false;
};

// One hierarchy under the container's /sys/fs/cgroup (runc's v1 layout without a cgroup
// namespace): a read-only bind of the container's *own* cgroup directory, never the host
// hierarchy's root. Computed by the runtime before clone (cgroup_mounts.h).
struct CgroupBind {
  std::string name;    // "memory", "cpu,cpuacct", "unified"; empty: the mount itself (v2 alone)
  std::string source;  // host directory
  std::vector<std::string> links;  // "cpu" and "cpuacct" -> "cpu,cpuacct" for co-mounted ones
};

struct DeviceStep {
  std::string path;
  char type = 'c';  // c, b, u, p
  int64_t major = 0, minor = 0;
  uint32_t mode = 0666, uid = 0, gid = 0;
};

struct Rlimit {
  int resource = 0;
  uint64_t soft = 0, hard = 0;
};

struct SeccompArg {
  unsigned index = 0;
  uint64_t value = 0, value_two = 0;
  std::string op;  // SCMP_CMP_EQ, ...
};

struct SeccompRule {
  std::vector<std::string> names;
  std::string action;
  std::optional<int> errno_ret;
  std::vector<SeccompArg> args;
};

struct SeccompPlan {
  bool enabled = false;
  std::string default_action;
  std::optional<int> default_errno;
  std::vector<std::string> architectures;
  std::vector<SeccompRule> rules;
};

struct CapSets {
  std::vector<int> bounding, effective, permitted, inheritable, ambient;
};

struct ProcessPlan {
  std::vector<std::string> args, env;
  std::string cwd = "/";
  uint32_t uid = 0, gid = 0;
  std::vector<uint32_t> additional_gids;
  bool terminal = false;
  bool no_new_privs = false;
  CapSets caps;
  std::vector<Rlimit> rlimits;
  std::optional<int> oom_score_adj;
};

struct LaunchPlan {
  std::vector<NsStep> namespaces;  // in the order they must be set up (user first)
  int clone_flags = 0;             // new namespaces to create
  std::vector<IdMap> uid_map, gid_map;
  std::filesystem::path rootfs;
  bool readonly_root = false;
  bool no_pivot = false;  // --no-pivot: MS_MOVE + chroot instead of pivot_root (runc's flag)
  // linux.namespaces has no "mount": the container stays in the runtime's mount namespace
  // and is chrooted into a detached copy of its set-up root (EnterDetachedRoot).
  bool host_mount_ns = false;
  unsigned long rootfs_propagation = 0;
  std::vector<MountStep> mounts;
  std::vector<DeviceStep> devices;  // defaults + spec devices
  std::vector<std::string> masked_paths, readonly_paths;
  std::string hostname, domainname;
  std::vector<std::pair<std::string, std::string>> sysctl;
  ProcessPlan process;
  SeccompPlan seccomp;
  std::string cgroups_path;
  std::vector<CgroupBind> cgroup_binds;  // what a `cgroup` mount shows (set by the backend)
  // Hooks the init runs itself (the others run in the runtime): createContainer before
  // pivot_root, startContainer after `start`. hook_state is the OCI state they read (id,
  // bundle, annotations), set by the backend; the init fills in status and its pid.
  std::vector<Hook> create_container_hooks, start_container_hooks;
  std::string hook_state;
  // The container's own session keyring (keyring.h), set by the backend; empty with
  // --no-new-keyring (the caller's is kept, as runc does).
  std::string keyring;
  // stdin/stdout/stderr become /dev/null in the init (a session's idle init).
  bool null_stdio = false;
};

// Pure: spec + bundle dir -> plan, or the first thing in the spec we cannot honour.
Result<LaunchPlan> PlanFromSpec(const bundle::Spec& spec, const std::filesystem::path& bundle_dir);
// The process part alone (exec uses it for --process JSON, read strictly: a mistyped field is
// an error naming it).
Result<ProcessPlan> ProcessPlanFrom(const bundle::Process& process);
Result<ProcessPlan> ProcessPlanFrom(const boost::json::object& process);
// mount(2) flags and data from OCI mount options (pure).
void ParseMountOptions(const std::vector<std::string>& options, MountStep* m);
// After the options: a bind's remount and recursive attributes (pure; ParseMountOptions calls it).
void FinishBindFlags(MountStep* m);
int NamespaceFlag(std::string_view type);
Result<int> CapabilityNumber(std::string_view name);
Result<int> RlimitNumber(std::string_view name);

}  // namespace sandshim::native
