#include "shim/native/plan.h"

#include "bundle/session_spec.h"

#include <linux/capability.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>

#include <map>

namespace sandshim::native {
namespace json = boost::json;

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

static Result<std::vector<int>> Caps(const std::vector<std::string>& names) {
  std::vector<int> out;
  for (const auto& name : names) out.push_back(TRY(CapabilityNumber(name)));
  return out;
}

// kInitEnvAnnotation's value: a JSON array of "K=V" strings.
static Result<std::vector<std::string>> InitEnv(const std::string& text) {
  boost::system::error_code ec;
  auto v = json::parse(text, ec);
  if (ec || !v.is_array()) return MakeError(std::string(bundle::kInitEnvAnnotation) + ": not a JSON array", EINVAL);
  std::vector<std::string> env;
  for (const auto& e : v.as_array()) {
    if (!e.is_string()) return MakeError(std::string(bundle::kInitEnvAnnotation) + ": not a list of strings", EINVAL);
    env.emplace_back(e.as_string());
  }
  return env;
}

Result<ProcessPlan> ProcessPlanFrom(const bundle::Process& p) {
  ProcessPlan out;
  out.args = p.args;
  out.env = p.env;
  out.cwd = p.cwd.empty() ? "/" : p.cwd;
  out.terminal = p.terminal;
  out.no_new_privs = p.no_new_privileges;
  out.uid = p.user.uid;
  out.gid = p.user.gid;
  out.additional_gids = p.user.additional_gids;
  if (const auto& c = p.capabilities) {
    out.caps.bounding = TRY(Caps(c->bounding));
    out.caps.effective = TRY(Caps(c->effective));
    out.caps.permitted = TRY(Caps(c->permitted));
    out.caps.inheritable = TRY(Caps(c->inheritable));
    out.caps.ambient = TRY(Caps(c->ambient));
  }
  for (const auto& r : p.rlimits) out.rlimits.push_back({TRY(RlimitNumber(r.type)), r.soft, r.hard});
  out.oom_score_adj = p.oom_score_adj;
  if (out.args.empty()) return MakeError("process.args must name a command", EINVAL);
  return out;
}

Result<ProcessPlan> ProcessPlanFrom(const json::object& p) {
  return ProcessPlanFrom(TRY(bundle::ReadProcess(p, "process")));
}

static Result<SeccompArg> SeccompArgFrom(const bundle::Fields& a) {
  return SeccompArg{TRY(a.NumberOr<unsigned>("index", 0)), TRY(a.NumberOr<uint64_t>("value", 0)),
                    TRY(a.NumberOr<uint64_t>("valueTwo", 0)), TRY(a.StringOr("op"))};
}

static Result<SeccompRule> SeccompRuleFrom(const bundle::Fields& o) {
  SeccompRule r;
  r.names = TRY(o.Strings("names"));
  r.action = TRY(o.StringOr("action"));
  r.errno_ret = TRY(o.Number<int>("errnoRet"));
  for (const auto& a : TRY(o.Objects("args"))) r.args.push_back(TRY(SeccompArgFrom(a)));
  return r;
}

static Result<SeccompPlan> SeccompFrom(const bundle::Fields& s) {
  SeccompPlan plan;
  plan.enabled = true;
  // As runc: a profile without a default would silently allow everything it does not name.
  plan.default_action = TRY(s.StringOr("defaultAction"));
  if (plan.default_action.empty()) return MakeError("linux.seccomp needs a defaultAction", EINVAL);
  plan.default_errno = TRY(s.Number<int>("defaultErrnoRet"));
  plan.architectures = TRY(s.Strings("architectures"));
  for (const auto& o : TRY(s.Objects("syscalls"))) plan.rules.push_back(TRY(SeccompRuleFrom(o)));
  return plan;
}

static void DefaultDevices(LaunchPlan& plan) {
  // What runc gives every container (runtime-spec "default devices").
  for (auto [path, major, minor] : {std::tuple{"/dev/null", 1, 3}, {"/dev/zero", 1, 5}, {"/dev/full", 1, 7},
                                    {"/dev/random", 1, 8}, {"/dev/urandom", 1, 9}, {"/dev/tty", 5, 0}})
    plan.devices.push_back({path, 'c', major, minor, 0666, 0, 0});
}

static Result<void> ReadMounts(const bundle::Spec& spec, const std::filesystem::path& bundle_dir, LaunchPlan& plan) {
  for (const auto& sm : spec.mounts) {
    MountStep m;
    m.destination = sm.destination;
    m.type = sm.type;
    m.source = sm.source;
    ParseMountOptions(sm.options, &m);
    if (m.type == "bind") m.bind = true, m.flags |= MS_BIND, FinishBindFlags(&m);
    if (m.bind && !m.source.empty() && m.source[0] != '/') m.source = (bundle_dir / m.source).string();
    if (m.destination.empty() || m.destination[0] != '/')
      return MakeError("mount destination \"" + m.destination + "\" must be absolute", EINVAL);
    plan.mounts.push_back(std::move(m));
  }
  return Ok();
}

static Result<void> ReadLinux(const bundle::Spec& spec, LaunchPlan& plan) {
  plan.cgroups_path = spec.cgroups_path;
  plan.masked_paths = spec.masked_paths;
  plan.readonly_paths = spec.readonly_paths;
  plan.sysctl = spec.sysctl;
  for (auto [src, dst] : {std::pair{&spec.uid_mappings, &plan.uid_map}, std::pair{&spec.gid_mappings, &plan.gid_map}})
    for (const auto& m : *src) dst->push_back({m.container_id, m.host_id, m.size});
  for (const auto& d : spec.devices)
    plan.devices.push_back({d.path, d.type.empty() ? 'c' : d.type[0], d.major, d.minor, d.file_mode, d.uid, d.gid});
  if (spec.has_seccomp) {
    // ParseSpec checked that linux.seccomp is an object; its rules are read (strictly) here.
    bundle::Fields linux_fields(spec.doc.at("linux").get_object(), "config.json", "linux");
    plan.seccomp = TRY(SeccompFrom(*TRY(linux_fields.Object("seccomp"))));
  }
  if (!spec.rootfs_propagation.empty()) {
    MountStep tmp;
    ParseMountOptions({spec.rootfs_propagation}, &tmp);
    plan.rootfs_propagation = tmp.propagation;
  }
  return Ok();
}

Result<LaunchPlan> PlanFromSpec(const bundle::Spec& spec, const std::filesystem::path& bundle_dir) {
  LaunchPlan plan;
  plan.rootfs = bundle::RootfsPath(spec, bundle_dir);
  plan.readonly_root = spec.root_readonly;
  plan.hostname = spec.hostname;
  plan.domainname = spec.domainname;
  // User namespace first: every other namespace is then owned by it.
  for (const char* type : {"user", "mount", "pid", "network", "ipc", "uts", "cgroup"}) {
    const auto* ns = bundle::FindNamespace(spec, type);
    if (!ns) continue;
    plan.namespaces.push_back({NamespaceFlag(type), ns->path});
    if (ns->path.empty()) plan.clone_flags |= NamespaceFlag(type);
  }
  // No mount namespace in the spec (runtime-tools' linux_ns_itype): the container shares the
  // runtime's, as runc's does. runc then sets up the rootfs in the host's mount table (its
  // mounts stay there, and it makes the host's "/" a recursive slave) and chroots. Ours
  // is set up in a throwaway namespace and only a detached copy of it is kept as the
  // container's root (mounts.h, EnterDetachedRoot): the host's mount table is never
  // changed. Back in the host's namespace needs CAP_SYS_ADMIN over it, which a new user
  // namespace would not have: that combination is refused.
  if (!bundle::FindNamespace(spec, "mount")) {
    if (plan.clone_flags & CLONE_NEWUSER)
      return MakeError("a spec without a mount namespace cannot have a new user namespace", EINVAL);
    plan.host_mount_ns = true;
  }
  DefaultDevices(plan);
  TRY(ReadMounts(spec, bundle_dir, plan));
  TRY(ReadLinux(spec, plan));
  if ((plan.clone_flags & CLONE_NEWUSER) && plan.uid_map.empty())
    return MakeError("a new user namespace needs linux.uidMappings", EINVAL);
  if (!spec.process) return MakeError("spec has no process", EINVAL);
  plan.process = TRY(ProcessPlanFrom(*spec.process));
  if (auto it = spec.annotations.find(bundle::kInitEnvAnnotation); it != spec.annotations.end())
    plan.process.env = TRY(InitEnv(it->second));
  plan.create_container_hooks = HooksOf(spec.doc, "createContainer");
  plan.start_container_hooks = HooksOf(spec.doc, "startContainer");
  return plan;
}

}  // namespace sandshim::native
