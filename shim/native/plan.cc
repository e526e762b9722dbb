#include "shim/native/plan.h"

#include <linux/capability.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>

#include <map>

namespace sandshim::native {
namespace json = boost::json;
using bundle::GetArray;
using bundle::GetObject;
using bundle::GetString;
using bundle::GetStrings;

int NamespaceFlag(std::string_view type) {
  static const std::map<std::string, int, std::less<>> kFlags = {
      {"user", CLONE_NEWUSER}, {"mount", CLONE_NEWNS}, {"pid", CLONE_NEWPID},     {"network", CLONE_NEWNET},
      {"ipc", CLONE_NEWIPC},   {"uts", CLONE_NEWUTS},  {"cgroup", CLONE_NEWCGROUP}};
  auto it = kFlags.find(type);
  return it == kFlags.end() ? 0 : it->second;
}

Result<int> CapabilityNumber(std::string_view name) {
  static const std::map<std::string, int, std::less<>> kCaps = {
      {"CAP_CHOWN", CAP_CHOWN}, {"CAP_DAC_OVERRIDE", CAP_DAC_OVERRIDE}, {"CAP_DAC_READ_SEARCH", CAP_DAC_READ_SEARCH},
      {"CAP_FOWNER", CAP_FOWNER}, {"CAP_FSETID", CAP_FSETID}, {"CAP_KILL", CAP_KILL}, {"CAP_SETGID", CAP_SETGID},
      {"CAP_SETUID", CAP_SETUID}, {"CAP_SETPCAP", CAP_SETPCAP}, {"CAP_LINUX_IMMUTABLE", CAP_LINUX_IMMUTABLE},
      {"CAP_NET_BIND_SERVICE", CAP_NET_BIND_SERVICE}, {"CAP_NET_BROADCAST", CAP_NET_BROADCAST},
      {"CAP_NET_ADMIN", CAP_NET_ADMIN}, {"CAP_NET_RAW", CAP_NET_RAW}, {"CAP_IPC_LOCK", CAP_IPC_LOCK},
      {"CAP_IPC_OWNER", CAP_IPC_OWNER}, {"CAP_SYS_MODULE", CAP_SYS_MODULE}, {"CAP_SYS_RAWIO", CAP_SYS_RAWIO},
      {"CAP_SYS_CHROOT", CAP_SYS_CHROOT}, {"CAP_SYS_PTRACE", CAP_SYS_PTRACE}, {"CAP_SYS_PACCT", CAP_SYS_PACCT},
      {"CAP_SYS_ADMIN", CAP_SYS_ADMIN}, {"CAP_SYS_BOOT", CAP_SYS_BOOT}, {"CAP_SYS_NICE", CAP_SYS_NICE},
      {"CAP_SYS_RESOURCE", CAP_SYS_RESOURCE}, {"CAP_SYS_TIME", CAP_SYS_TIME}, {"CAP_SYS_TTY_CONFIG", CAP_SYS_TTY_CONFIG},
      {"CAP_MKNOD", CAP_MKNOD}, {"CAP_LEASE", CAP_LEASE}, {"CAP_AUDIT_WRITE", CAP_AUDIT_WRITE},
      {"CAP_AUDIT_CONTROL", CAP_AUDIT_CONTROL}, {"CAP_SETFCAP", CAP_SETFCAP}, {"CAP_MAC_OVERRIDE", CAP_MAC_OVERRIDE},
      {"CAP_MAC_ADMIN", CAP_MAC_ADMIN}, {"CAP_SYSLOG", CAP_SYSLOG}, {"CAP_WAKE_ALARM", CAP_WAKE_ALARM},
      {"CAP_BLOCK_SUSPEND", CAP_BLOCK_SUSPEND}, {"CAP_AUDIT_READ", CAP_AUDIT_READ}, {"CAP_PERFMON", CAP_PERFMON},
      {"CAP_BPF", CAP_BPF}, {"CAP_CHECKPOINT_RESTORE", CAP_CHECKPOINT_RESTORE}};
  auto it = kCaps.find(name);
  if (it == kCaps.end()) return MakeError("unknown capability \"" + std::string(name) + "\"", EINVAL);
  return it->second;
}

Result<int> RlimitNumber(std::string_view name) {
  static const std::map<std::string, int, std::less<>> kLimits = {
      {"RLIMIT_AS", RLIMIT_AS},         {"RLIMIT_CORE", RLIMIT_CORE},       {"RLIMIT_CPU", RLIMIT_CPU},
      {"RLIMIT_DATA", RLIMIT_DATA},     {"RLIMIT_FSIZE", RLIMIT_FSIZE},     {"RLIMIT_LOCKS", RLIMIT_LOCKS},
      {"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK}, {"RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE}, {"RLIMIT_NICE", RLIMIT_NICE},
      {"RLIMIT_NOFILE", RLIMIT_NOFILE}, {"RLIMIT_NPROC", RLIMIT_NPROC},     {"RLIMIT_RSS", RLIMIT_RSS},
      {"RLIMIT_RTPRIO", RLIMIT_RTPRIO}, {"RLIMIT_RTTIME", RLIMIT_RTTIME},   {"RLIMIT_SIGPENDING", RLIMIT_SIGPENDING},
      {"RLIMIT_STACK", RLIMIT_STACK}};
  auto it = kLimits.find(name);
  if (it == kLimits.end()) return MakeError("unknown rlimit \"" + std::string(name) + "\"", EINVAL);
  return it->second;
}

void ParseMountOptions(const std::vector<std::string>& options, MountStep* m) {
  struct Flag {
    bool clear;
    unsigned long bit;
  };
  static const std::map<std::string, Flag, std::less<>> kFlags = {
      {"ro", {false, MS_RDONLY}},     {"rw", {true, MS_RDONLY}},         {"nosuid", {false, MS_NOSUID}},
      {"suid", {true, MS_NOSUID}},    {"nodev", {false, MS_NODEV}},      {"dev", {true, MS_NODEV}},
      {"noexec", {false, MS_NOEXEC}}, {"exec", {true, MS_NOEXEC}},       {"sync", {false, MS_SYNCHRONOUS}},
      {"async", {true, MS_SYNCHRONOUS}}, {"dirsync", {false, MS_DIRSYNC}}, {"remount", {false, MS_REMOUNT}},
      {"mand", {false, MS_MANDLOCK}}, {"nomand", {true, MS_MANDLOCK}},   {"atime", {true, MS_NOATIME}},
      {"noatime", {false, MS_NOATIME}}, {"diratime", {true, MS_NODIRATIME}}, {"nodiratime", {false, MS_NODIRATIME}},
      {"relatime", {false, MS_RELATIME}}, {"norelatime", {true, MS_RELATIME}}, {"strictatime", {false, MS_STRICTATIME}},
      {"nostrictatime", {true, MS_STRICTATIME}}};
  static const std::map<std::string, unsigned long, std::less<>> kPropagation = {
      {"private", MS_PRIVATE},       {"rprivate", MS_PRIVATE | MS_REC}, {"shared", MS_SHARED},
      {"rshared", MS_SHARED | MS_REC}, {"slave", MS_SLAVE},           {"rslave", MS_SLAVE | MS_REC},
      {"unbindable", MS_UNBINDABLE}, {"runbindable", MS_UNBINDABLE | MS_REC}};
  static const std::map<std::string, uint64_t, std::less<>> kRecursive = {
      {"rro", MOUNT_ATTR_RDONLY}, {"rnosuid", MOUNT_ATTR_NOSUID}, {"rnodev", MOUNT_ATTR_NODEV},
      {"rnoexec", MOUNT_ATTR_NOEXEC}};
  for (const auto& o : options) {
    if (auto r = kRecursive.find(o); r != kRecursive.end()) {
      m->recursive_attrs |= r->second;
    } else if (o == "tmpcopyup") {
      m->copy_up = true;
    } else if (o == "bind" || o == "rbind") {
      m->bind = true;
      m->flags |= MS_BIND | (o == "rbind" ? MS_REC : 0);
    } else if (auto f = kFlags.find(o); f != kFlags.end()) {
      if (f->second.clear) m->flags &= ~f->second.bit;
      else m->flags |= f->second.bit;
    } else if (auto p = kPropagation.find(o); p != kPropagation.end()) {
      m->propagation = p->second;
    } else {
      m->data += (m->data.empty() ? "" : ",") + o;
    }
  }
  FinishBindFlags(m);
}

void FinishBindFlags(MountStep* m) {
  if (!m->bind) return;
  if (m->flags & (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)) m->remount = true;
  // "ro" on an rbind means the whole tree (runc keeps submounts writable unless "rro").
  if ((m->flags & MS_RDONLY) && (m->flags & MS_REC)) m->recursive_attrs |= MOUNT_ATTR_RDONLY;
}

static Result<std::vector<int>> Caps(const json::object& caps, std::string_view set) {
  std::vector<int> out;
  for (const auto& name : GetStrings(caps, set)) out.push_back(TRY(CapabilityNumber(name)));
  return out;
}

static uint64_t U64(const json::object& o, std::string_view key, uint64_t def = 0) {
  auto it = o.find(key);
  if (it == o.end()) return def;
  if (it->value().is_uint64()) return it->value().get_uint64();
  if (it->value().is_int64()) return static_cast<uint64_t>(it->value().get_int64());
  return def;
}

Result<ProcessPlan> ProcessPlanFrom(const json::object& p) {
  ProcessPlan out;
  out.args = GetStrings(p, "args");
  out.env = GetStrings(p, "env");
  out.cwd = GetString(p, "cwd", "/");
  out.terminal = bundle::GetBool(p, "terminal");
  out.no_new_privs = bundle::GetBool(p, "noNewPrivileges");
  if (const auto* u = GetObject(p, "user")) {
    out.uid = static_cast<uint32_t>(U64(*u, "uid"));
    out.gid = static_cast<uint32_t>(U64(*u, "gid"));
    if (const auto* g = GetArray(*u, "additionalGids"))
      for (const auto& v : *g) out.additional_gids.push_back(static_cast<uint32_t>(v.to_number<uint64_t>()));
  }
  if (const auto* c = GetObject(p, "capabilities")) {
    out.caps.bounding = TRY(Caps(*c, "bounding"));
    out.caps.effective = TRY(Caps(*c, "effective"));
    out.caps.permitted = TRY(Caps(*c, "permitted"));
    out.caps.inheritable = TRY(Caps(*c, "inheritable"));
    out.caps.ambient = TRY(Caps(*c, "ambient"));
  }
  if (const auto* rl = GetArray(p, "rlimits"))
    for (const auto& v : *rl) {
      if (!v.is_object()) continue;
      const auto& o = v.get_object();
      out.rlimits.push_back({TRY(RlimitNumber(GetString(o, "type"))), U64(o, "soft"), U64(o, "hard")});
    }
  if (auto it = p.find("oomScoreAdj"); it != p.end() && it->value().is_int64())
    out.oom_score_adj = static_cast<int>(it->value().get_int64());
  if (out.args.empty()) return MakeError("process.args must name a command", EINVAL);
  return out;
}

static Result<SeccompPlan> SeccompFrom(const json::object& s) {
  SeccompPlan plan;
  plan.enabled = true;
  // As runc: a profile without a default would silently allow everything it does not name.
  plan.default_action = GetString(s, "defaultAction");
  if (plan.default_action.empty()) return MakeError("linux.seccomp needs a defaultAction", EINVAL);
  if (auto it = s.find("defaultErrnoRet"); it != s.end() && it->value().is_number())
    plan.default_errno = it->value().to_number<int>();
  plan.architectures = GetStrings(s, "architectures");
  if (const auto* syscalls = GetArray(s, "syscalls"))
    for (const auto& v : *syscalls) {
      if (!v.is_object()) continue;
      const auto& o = v.get_object();
      SeccompRule r;
      r.names = GetStrings(o, "names");
      r.action = GetString(o, "action");
      if (auto it = o.find("errnoRet"); it != o.end() && it->value().is_number()) r.errno_ret = it->value().to_number<int>();
      if (const auto* args = GetArray(o, "args"))
        for (const auto& a : *args) {
          if (!a.is_object()) continue;
          const auto& ao = a.get_object();
          r.args.push_back({static_cast<unsigned>(U64(ao, "index")), U64(ao, "value"), U64(ao, "valueTwo"), GetString(ao, "op")});
        }
      plan.rules.push_back(std::move(r));
    }
  return plan;
}

static void DefaultDevices(LaunchPlan& plan) {
  // What runc gives every container (runtime-spec "default devices").
  for (auto [path, major, minor] : {std::tuple{"/dev/null", 1, 3}, {"/dev/zero", 1, 5}, {"/dev/full", 1, 7},
                                    {"/dev/random", 1, 8}, {"/dev/urandom", 1, 9}, {"/dev/tty", 5, 0}})
    plan.devices.push_back({path, 'c', major, minor, 0666, 0, 0});
}

static Result<void> ReadMounts(const bundle::Spec& spec, const std::filesystem::path& bundle_dir, LaunchPlan& plan) {
  const auto* mounts = GetArray(spec.doc, "mounts");
  if (!mounts) return Ok();
  for (const auto& v : *mounts) {
    const auto& o = v.get_object();
    MountStep m;
    m.destination = GetString(o, "destination");
    m.type = GetString(o, "type");
    m.source = GetString(o, "source");
    ParseMountOptions(GetStrings(o, "options"), &m);
    if (m.type == "bind") m.bind = true, m.flags |= MS_BIND, FinishBindFlags(&m);
    if (m.bind && !m.source.empty() && m.source[0] != '/') m.source = (bundle_dir / m.source).string();
    if (m.destination.empty() || m.destination[0] != '/')
      return MakeError("mount destination \"" + m.destination + "\" must be absolute", EINVAL);
    plan.mounts.push_back(std::move(m));
  }
  return Ok();
}

static Result<void> ReadLinux(const json::object& l, LaunchPlan& plan) {
  plan.cgroups_path = GetString(l, "cgroupsPath");
  plan.masked_paths = GetStrings(l, "maskedPaths");
  plan.readonly_paths = GetStrings(l, "readonlyPaths");
  if (const auto* sc = GetObject(l, "sysctl"))
    for (const auto& kv : *sc)
      if (kv.value().is_string()) plan.sysctl.emplace_back(std::string(kv.key()), std::string(kv.value().get_string()));
  for (auto [key, dst] : {std::pair{"uidMappings", &plan.uid_map}, std::pair{"gidMappings", &plan.gid_map}})
    if (const auto* maps = GetArray(l, key))
      for (const auto& m : *maps)
        if (m.is_object())
          dst->push_back({static_cast<uint32_t>(U64(m.get_object(), "containerID")),
                          static_cast<uint32_t>(U64(m.get_object(), "hostID")),
                          static_cast<uint32_t>(U64(m.get_object(), "size"))});
  if (const auto* devs = GetArray(l, "devices"))
    for (const auto& d : *devs) {
      if (!d.is_object()) continue;
      const auto& o = d.get_object();
      std::string type = GetString(o, "type", "c");
      plan.devices.push_back({GetString(o, "path"), type.empty() ? 'c' : type[0], static_cast<int64_t>(U64(o, "major")),
                              static_cast<int64_t>(U64(o, "minor")), static_cast<uint32_t>(U64(o, "fileMode", 0666)),
                              static_cast<uint32_t>(U64(o, "uid")), static_cast<uint32_t>(U64(o, "gid"))});
    }
  if (const auto* sc = GetObject(l, "seccomp")) plan.seccomp = TRY(SeccompFrom(*sc));
  std::string prop = GetString(l, "rootfsPropagation");
  if (!prop.empty()) {
    MountStep tmp;
    ParseMountOptions({prop}, &tmp);
    plan.rootfs_propagation = tmp.propagation;
  }
  return Ok();
}

Result<LaunchPlan> PlanFromSpec(const bundle::Spec& spec, const std::filesystem::path& bundle_dir) {
  LaunchPlan plan;
  plan.rootfs = bundle::RootfsPath(spec, bundle_dir);
  plan.readonly_root = spec.root_readonly;
  plan.hostname = spec.hostname;
  plan.domainname = GetString(spec.doc, "domainname");
  // User namespace first: every other namespace is then owned by it.
  for (const char* type : {"user", "mount", "pid", "network", "ipc", "uts", "cgroup"}) {
    const auto* ns = bundle::FindNamespace(spec, type);
    if (!ns) continue;
    plan.namespaces.push_back({NamespaceFlag(type), ns->path});
    if (ns->path.empty()) plan.clone_flags |= NamespaceFlag(type);
  }
  // A mount namespace of its own or one given by path (set up there, as runc does): never
  // the runtime's own, which the rootfs setup would change.
  if (!bundle::FindNamespace(spec, "mount")) return MakeError("the native runtime needs a mount namespace", EINVAL);
  DefaultDevices(plan);
  TRY(ReadMounts(spec, bundle_dir, plan));
  if (const auto* l = GetObject(spec.doc, "linux")) TRY(ReadLinux(*l, plan));
  if ((plan.clone_flags & CLONE_NEWUSER) && plan.uid_map.empty())
    return MakeError("a new user namespace needs linux.uidMappings", EINVAL);
  const auto* p = GetObject(spec.doc, "process");
  if (!p) return MakeError("spec has no process", EINVAL);
  plan.process = TRY(ProcessPlanFrom(*p));
  plan.create_container_hooks = HooksOf(spec.doc, "createContainer");
  plan.start_container_hooks = HooksOf(spec.doc, "startContainer");
  return plan;
}

}  // namespace sandshim::native
