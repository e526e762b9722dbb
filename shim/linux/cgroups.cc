#include "shim/linux/cgroups.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <sstream>

#include "bundle/spec.h"
#include "shim/core/fs.h"
#include "shim/core/ids.h"
#include "shim/core/proc.h"
#include "shim/core/process.h"
#include "shim/linux/device_filter.h"
#include "shim/linux/sys.h"

namespace sandshim::native {
namespace json = boost::json;
namespace {

Status Write(const std::filesystem::path& file, const std::string& value) {
  FILE* f = std::fopen(file.c_str(), "we");
  if (!f) return ErrnoError("open " + file.string());
  bool ok = std::fputs(value.c_str(), f) >= 0;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) return ErrnoError("write " + value + " to " + file.string());
  return Ok();
}

bool Has(const Hierarchy& h, std::string_view c) {
  for (const auto& x : h.controllers)
    if (x == c) return true;
  return false;
}

// Which enforcer holds the device policy: the v1 devices cgroup where that hierarchy is
// mounted (v1 and hybrid hosts, as runc does), the cgroup2 eBPF filter where it is not (v2
// hosts, review C1). Both are enforced by the kernel; the filter on top of v1 added ~0.7 ms
// per create (BPF_PROG_LOAD) for nothing the v1 rules do not already refuse.
// SANDSHIM_TEST_DEVICE_POLICY=v1|bpf|none (attack tests only) forces one enforcer, so each
// can be shown to hold alone and the attack to work with neither.
bool DevicePolicyUses(std::string_view which, const std::vector<Hierarchy>& hs) {
  if (const char* only = std::getenv("SANDSHIM_TEST_DEVICE_POLICY"); only && *only) return which == only;
  bool v1_devices = false;
  for (const auto& h : hs) v1_devices = v1_devices || (!h.v2 && Has(h, "devices"));
  return which == "v1" || !v1_devices;
}

std::optional<int64_t> Num(const json::object* o, std::string_view key) {
  if (!o) return std::nullopt;
  auto it = o->find(key);
  if (it == o->end() || !it->value().is_number()) return std::nullopt;
  return it->value().to_number<int64_t>();
}

// v1 cpuset cgroups start with empty cpus/mems and refuse tasks: every level from the
// hierarchy's root down to dir inherits its parent's values when it has none.
void InitCpuset(const std::filesystem::path& mount, const std::filesystem::path& dir) {
  std::filesystem::path cur = mount;
  for (const auto& part : dir.lexically_relative(mount)) {
    std::filesystem::path parent = cur;
    cur /= part;
    for (const char* f : {"cpuset.cpus", "cpuset.mems"}) {
      std::string mine = fs::ReadFile(cur / f).value_or("");
      if (!mine.empty() && mine != "\n") continue;
      std::string theirs = fs::ReadFile(parent / f).value_or("");
      if (!theirs.empty() && theirs != "\n") (void)Write(cur / f, theirs);
    }
  }
}

// linux.resources.blockIO's device lists: [{major, minor, rate|weight}].
std::vector<std::pair<std::string, int64_t>> BlkioDevices(const json::object* blkio, std::string_view key,
                                                          std::string_view value) {
  std::vector<std::pair<std::string, int64_t>> out;
  const auto* list = blkio ? bundle::GetArray(*blkio, key) : nullptr;
  if (!list) return out;
  for (const auto& v : *list) {
    if (!v.is_object()) continue;
    const auto& o = v.get_object();
    auto major = Num(&o, "major"), minor = Num(&o, "minor"), n = Num(&o, value);
    if (major && minor && n) out.emplace_back(std::to_string(*major) + ":" + std::to_string(*minor), *n);
  }
  return out;
}

// As runc: the weight files of CFQ, else BFQ's; a weight neither can take is an error.
Status WriteWeight(const std::filesystem::path& dir, std::string_view file, const std::string& value) {
  for (const char* prefix : {"blkio.", "blkio.bfq."}) {
    auto f = dir / (prefix + std::string(file));
    if (fs::Exists(f)) return Write(f, value);
  }
  return MakeError("blkio " + std::string(file) + " is not supported by this kernel's I/O scheduler", ENOTSUP);
}

Status ApplyBlkioV1(const std::filesystem::path& dir, const json::object* blkio) {
  if (!blkio) return Ok();
  if (auto w = Num(blkio, "weight"); w && *w > 0) TRY(WriteWeight(dir, "weight", std::to_string(*w)));
  for (const auto& [dev, w] : BlkioDevices(blkio, "weightDevice", "weight"))
    TRY(WriteWeight(dir, "weight_device", dev + " " + std::to_string(w)));
  for (auto [key, file] : {std::pair{"throttleReadBpsDevice", "read_bps_device"},
                           {"throttleWriteBpsDevice", "write_bps_device"},
                           {"throttleReadIOPSDevice", "read_iops_device"},
                           {"throttleWriteIOPSDevice", "write_iops_device"}})
    for (const auto& [dev, rate] : BlkioDevices(blkio, key, "rate"))
      TRY(Write(dir / ("blkio.throttle." + std::string(file)), dev + " " + std::to_string(rate)));
  return Ok();
}

Status ApplyIoV2(const std::filesystem::path& dir, const json::object* blkio) {
  if (!blkio) return Ok();
  if (auto w = Num(blkio, "weight"); w && *w > 0) {
    if (fs::Exists(dir / "io.bfq.weight")) TRY(Write(dir / "io.bfq.weight", std::to_string(*w)));
    else TRY(Write(dir / "io.weight", "default " + std::to_string(1 + (*w - 10) * 9999 / 990)));  // runc's conversion
  }
  for (auto [key, field] : {std::pair{"throttleReadBpsDevice", "rbps"}, {"throttleWriteBpsDevice", "wbps"},
                            {"throttleReadIOPSDevice", "riops"}, {"throttleWriteIOPSDevice", "wiops"}})
    for (const auto& [dev, rate] : BlkioDevices(blkio, key, "rate"))
      TRY(Write(dir / "io.max", dev + " " + field + "=" + std::to_string(rate)));
  return Ok();
}

Status ApplyV1(const Hierarchy& h, const std::filesystem::path& dir, const json::object& r) {
  const auto* mem = bundle::GetObject(r, "memory");
  const auto* cpu = bundle::GetObject(r, "cpu");
  const auto* pids = bundle::GetObject(r, "pids");
  if (Has(h, "memory")) {
    if (auto v = Num(mem, "limit"); v && *v > 0) TRY(Write(dir / "memory.limit_in_bytes", std::to_string(*v)));
    if (auto v = Num(mem, "reservation"); v && *v > 0) TRY(Write(dir / "memory.soft_limit_in_bytes", std::to_string(*v)));
    if (auto v = Num(mem, "swap"); v && *v != 0 && fs::Exists(dir / "memory.memsw.limit_in_bytes"))
      TRY(Write(dir / "memory.memsw.limit_in_bytes", std::to_string(*v)));
    if (auto v = Num(mem, "swappiness"); v && *v >= 0) {
      if (*v > 100) return MakeError("memory.swappiness " + std::to_string(*v) + " is not in 0..100", EINVAL);
      TRY(Write(dir / "memory.swappiness", std::to_string(*v)));
    }
    if (mem && bundle::GetBool(*mem, "disableOOMKiller")) TRY(Write(dir / "memory.oom_control", "1"));
  }
  if (Has(h, "cpu")) {
    if (auto v = Num(cpu, "shares"); v && *v > 0) TRY(Write(dir / "cpu.shares", std::to_string(*v)));
    if (auto v = Num(cpu, "period"); v && *v > 0) TRY(Write(dir / "cpu.cfs_period_us", std::to_string(*v)));
    if (auto v = Num(cpu, "quota"); v && *v != 0) TRY(Write(dir / "cpu.cfs_quota_us", std::to_string(*v)));
  }
  if (Has(h, "cpuset")) {
    InitCpuset(h.mount, dir);
    if (cpu && !bundle::GetString(*cpu, "cpus").empty()) TRY(Write(dir / "cpuset.cpus", bundle::GetString(*cpu, "cpus")));
    if (cpu && !bundle::GetString(*cpu, "mems").empty()) TRY(Write(dir / "cpuset.mems", bundle::GetString(*cpu, "mems")));
  }
  if (Has(h, "pids"))
    if (auto v = Num(pids, "limit"); v && *v != 0) TRY(Write(dir / "pids.max", *v < 0 ? "max" : std::to_string(*v)));
  if (Has(h, "blkio")) TRY(ApplyBlkioV1(dir, bundle::GetObject(r, "blockIO")));
  if (Has(h, "devices") && DevicePolicyUses("v1", {h}))
    for (const auto& rule : DeviceRules(&r))
      TRY(Write(dir / (rule.allow ? "devices.allow" : "devices.deny"), V1Rule(rule)));
  return Ok();
}

// v2: only the controllers this hierarchy offers (in the hybrid layout, perhaps just hugetlb).
Status ApplyV2(const Hierarchy& h, const std::filesystem::path& dir, const json::object& r) {
  const auto* mem = bundle::GetObject(r, "memory");
  const auto* cpu = bundle::GetObject(r, "cpu");
  const auto* pids = bundle::GetObject(r, "pids");
  if (Has(h, "memory"))
    if (auto v = Num(mem, "limit"); v && *v > 0) TRY(Write(dir / "memory.max", std::to_string(*v)));
  if (Has(h, "cpu")) {
    if (auto v = Num(cpu, "shares"); v && *v > 0)  // runc's shares -> weight conversion
      TRY(Write(dir / "cpu.weight", std::to_string(1 + ((*v - 2) * 9999) / 262142)));
    if (auto q = Num(cpu, "quota"); q && *q > 0)
      TRY(Write(dir / "cpu.max", std::to_string(*q) + " " + std::to_string(Num(cpu, "period").value_or(100000))));
  }
  if (Has(h, "cpuset") && cpu && !bundle::GetString(*cpu, "cpus").empty())
    TRY(Write(dir / "cpuset.cpus", bundle::GetString(*cpu, "cpus")));
  if (Has(h, "pids"))
    if (auto v = Num(pids, "limit"); v && *v != 0) TRY(Write(dir / "pids.max", *v < 0 ? "max" : std::to_string(*v)));
  if (Has(h, "io")) TRY(ApplyIoV2(dir, bundle::GetObject(r, "blockIO")));
  return Ok();
}

// A recorded path with ".." could lead out of cgroupfs (cgroupsPath "/../../tmp/x"): never
// read pids from it (kill --all, delete), write to it or remove it. Setup refuses such a
// spec, but the journal records the paths before setup runs, and its undo reads them.
bool Escapes(const std::filesystem::path& dir) { return dir.string().find("..") != std::string::npos; }

bool CpusetAsked(const json::object* r) {
  const auto* cpu = r ? bundle::GetObject(*r, "cpu") : nullptr;
  return cpu && (!bundle::GetString(*cpu, "cpus").empty() || !bundle::GetString(*cpu, "mems").empty());
}

Status Join(const std::filesystem::path& dir, pid_t pid) { return Write(dir / "cgroup.procs", std::to_string(pid)); }

// Creates dir in h and applies what of r concerns h.
Status MakeCgroup(const Hierarchy& h, const std::filesystem::path& dir, const json::object* r) {
  if (Escapes(dir)) return MakeError("cgroupsPath must not contain ..", EINVAL);
  TRY(fs::MkdirAll(dir, 0755));
  if (r && !h.controllers.empty()) return h.v2 ? ApplyV2(h, dir, *r) : ApplyV1(h, dir, *r);
  if (!h.v2 && Has(h, "cpuset")) InitCpuset(h.mount, dir);
  return Ok();
}

bool IsFrozen(const std::vector<std::filesystem::path>& dirs) {
  for (const auto& d : dirs) {
    if (auto s = fs::ReadFile(d / "freezer.state"); s) return s->starts_with("FROZEN");
    if (auto s = fs::ReadFile(d / "cgroup.freeze"); s) return s->starts_with("1");
  }
  return false;
}

}  // namespace

bool HierarchyMade(const Hierarchy& h, const json::object* resources) {
  // The cgroup2 hierarchy always: the device filter is attached there, even in the hybrid
  // layout where it offers no controller (defence in depth under the v1 devices cgroup).
  return h.v2 || HierarchyNeeded(h, resources);
}

Status CheckCgroupsPath(const std::string& cgroups_path) {
  if (cgroups_path.empty()) return Ok();  // ours: /sandshim-<id>
  if (cgroups_path.find("..") != std::string::npos) return MakeError("cgroupsPath must not contain ..", EINVAL);
  // "/", "//", "/." : a hierarchy's root, i.e. every process on the host (review L7).
  auto norm = std::filesystem::path(cgroups_path).lexically_normal().relative_path().string();
  while (!norm.empty() && (norm.back() == '/' || norm.back() == '.')) norm.pop_back();
  if (norm.empty()) return MakeError("cgroupsPath \"" + cgroups_path + "\" names the root of the cgroup hierarchies", EINVAL);
  return Ok();
}

Status CheckControllersFor(const std::vector<Hierarchy>& hs, const json::object* resources) {
  if (!resources) return Ok();
  auto offered = [&](std::string_view v1, std::string_view v2) {
    for (const auto& h : hs)
      if (Has(h, h.v2 ? v2 : v1)) return true;
    return false;
  };
  // As runc: a limit that nothing would enforce is an error, not a silent no-op.
  const auto* blkio = bundle::GetObject(*resources, "blockIO");
  if (blkio && !blkio->empty() && !offered("blkio", "io"))
    return MakeError("linux.resources.blockIO is set but no blkio/io cgroup controller is mounted", ENOTSUP);
  const auto* net = bundle::GetObject(*resources, "network");
  if (net && net->contains("classID") && !offered("net_cls", "net_cls"))
    return MakeError("linux.resources.network.classID is set but the net_cls cgroup controller is not mounted", ENOTSUP);
  if (net && net->contains("priorities") && !offered("net_prio", "net_prio"))
    return MakeError("linux.resources.network.priorities is set but the net_prio cgroup controller is not mounted", ENOTSUP);
  return Ok();
}

bool HierarchyNeeded(const Hierarchy& h, const json::object* resources) {
  // v2 is one hierarchy: needed unless it offers nothing (the hybrid layout's empty mount).
  if (h.v2) return !h.controllers.empty();
  for (const auto& c : h.controllers) {
    // Limits, usage figures (stats), the device policy, and the freezer that pause, kill
    // --all and delete rely on: cheap, and always wanted.
    if (c == "cpu" || c == "cpuacct" || c == "memory" || c == "pids" || c == "blkio" || c == "devices" ||
        c == "freezer")
      return true;
    // cpuset only when asked for: its mkdir alone costs ~1 ms, and it holds no usage figures.
    if (c == "cpuset" && CpusetAsked(resources)) return true;
  }
  // Named hierarchies (name=systemd) and controllers we never configure (net_cls, net_prio,
  // perf_event, hugetlb, rdma, misc): the parent's cgroup is as good.
  return false;
}

std::string DefaultCgroupName(const std::filesystem::path& state_root, const std::string& id) {
  return "sandshim-" + RootTag(state_root) + "-" + id;
}

Status CheckCgroupsFree(const std::vector<std::filesystem::path>& dirs) {
  for (const auto& d : dirs)
    if (auto procs = fs::ReadFile(d / "cgroup.procs"); procs && !procs->empty())
      return MakeError("cgroupsPath " + d.string() + " is an existing cgroup with processes in it", EEXIST);
  return Ok();
}

std::vector<std::filesystem::path> CgroupDirs(const std::string& cgroups_path, const std::string& default_name) {
  // No shared parent of ours: a container's cgroup is all there is to remove.
  std::string rel = cgroups_path.empty() ? "/" + default_name : cgroups_path;
  auto own = cgroupfs::Own();
  std::vector<std::filesystem::path> dirs;
  for (const auto& h : Hierarchies()) dirs.push_back(cgroupfs::DirOf(h, own, rel));
  return dirs;
}

Status MakeCgroups(const std::vector<std::filesystem::path>& dirs, const json::object* resources) {
  return MakeCgroups(Hierarchies(), dirs, resources);
}

Status JoinCgroups(const std::vector<std::filesystem::path>& dirs, const json::object* resources, pid_t pid,
                   const std::vector<bool>& skip) {
  return JoinCgroups(Hierarchies(), dirs, resources, pid, skip);
}

Result<SelfJoin> OpenSelfJoin(const std::vector<std::filesystem::path>& dirs, const json::object* resources) {
  return OpenSelfJoin(Hierarchies(), dirs, resources);
}

Result<SelfJoin> OpenSelfJoin(const std::vector<Hierarchy>& hs, const std::vector<std::filesystem::path>& dirs,
                              const json::object* resources) {
  SelfJoin j;
  j.self.assign(dirs.size(), false);
  // v1 only: a cgroup2 domain cgroup takes no single thread (cgroup.threads is for threaded
  // subtrees); the runtime writes the init's pid there.
  for (size_t i = 0; i < dirs.size() && i < hs.size(); ++i) {
    if (!HierarchyMade(hs[i], resources)) continue;
    if (hs[i].v2) {
      j.cgroup2_dir.Reset(::open(dirs[i].c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
      j.cgroup2_index = i;
      continue;
    }
    UniqueFd fd(::open((dirs[i] / "tasks").c_str(), O_WRONLY | O_CLOEXEC));
    if (!fd.valid()) return ErrnoError("open " + (dirs[i] / "tasks").string());
    j.fds.push_back(std::move(fd));
    j.self[i] = true;
  }
  return j;
}

Status JoinSelf(const std::vector<int>& fds) {
  for (int fd : fds)
    if (::write(fd, "0", 1) != 1) return ErrnoError("move the container init into its cgroups");
  return Ok();
}

Status SetupCgroups(const std::vector<Hierarchy>& hs, const std::vector<std::filesystem::path>& dirs,
                    const json::object* resources, pid_t pid) {
  TRY(MakeCgroups(hs, dirs, resources));
  return JoinCgroups(hs, dirs, resources, pid);
}

Status MakeCgroups(const std::vector<Hierarchy>& hs, const std::vector<std::filesystem::path>& dirs,
                   const json::object* resources) {
  // Every recorded path, made or not: delete rmdirs them all.
  for (const auto& d : dirs)
    if (Escapes(d)) return MakeError("cgroupsPath must not contain ..", EINVAL);
  TRY(CheckControllersFor(hs, resources));
  for (size_t i = 0; i < dirs.size() && i < hs.size(); ++i) {
    if (!HierarchyMade(hs[i], resources)) continue;  // stays a path that does not exist
    // A container gets a cgroup of its own: one that already holds processes belongs to
    // someone else, and delete would kill them all (review L7).
    if (auto procs = fs::ReadFile(dirs[i] / "cgroup.procs"); procs && !procs->empty())
      return MakeError("cgroupsPath " + dirs[i].string() + " is an existing cgroup with processes in it", EEXIST);
    TRY(MakeCgroup(hs[i], dirs[i], resources));
    if (hs[i].v2 && DevicePolicyUses("bpf", hs))
      TRY(AttachDeviceFilter(LinuxSys(), dirs[i], DeviceFilterProgram(DeviceRules(resources))));
  }
  return Ok();
}

Status JoinCgroups(const std::vector<Hierarchy>& hs, const std::vector<std::filesystem::path>& dirs,
                   const json::object* resources, pid_t pid, const std::vector<bool>& skip) {
  // Back to back: a v1 migration waits out an RCU grace period unless one just ended (the
  // kernel keeps cgroup_threadgroup_rwsem on its slow path for a grace period after a write);
  // spread between mkdirs and limit writes, a loaded host paid it for several hierarchies.
  for (size_t i = 0; i < dirs.size() && i < hs.size(); ++i)
    if (HierarchyMade(hs[i], resources) && !(i < skip.size() && skip[i])) TRY(Join(dirs[i], pid));
  return Ok();
}

Status UpdateCgroups(const std::vector<std::filesystem::path>& dirs, const json::object& resources) {
  return UpdateCgroups(Hierarchies(), dirs, resources);
}

Status UpdateCgroups(const std::vector<Hierarchy>& hs, const std::vector<std::filesystem::path>& dirs,
                     const json::object& resources) {
  // New device rules replace the v2 program (the v1 lines are written by ApplyV1 below).
  if (bundle::GetArray(resources, "devices") && DevicePolicyUses("bpf", hs))
    for (size_t i = 0; i < dirs.size() && i < hs.size(); ++i)
      if (hs[i].v2 && !Escapes(dirs[i]) && fs::Exists(dirs[i]))
        TRY(ReplaceDeviceFilter(LinuxSys(), dirs[i], DeviceFilterProgram(DeviceRules(&resources))));
  for (size_t i = 0; i < dirs.size() && i < hs.size(); ++i) {
    if (hs[i].controllers.empty() || Escapes(dirs[i])) continue;
    if (fs::Exists(dirs[i])) {
      TRY(hs[i].v2 ? ApplyV2(hs[i], dirs[i], resources) : ApplyV1(hs[i], dirs[i], resources));
      continue;
    }
    // A hierarchy the container was created without (cpuset) is needed now: make its
    // cgroup and move every process in, frozen so none forks past the move.
    if (!HierarchyNeeded(hs[i], &resources)) continue;
    TRY(MakeCgroup(hs[i], dirs[i], &resources));
    bool was_frozen = IsFrozen(dirs);
    if (!was_frozen) (void)Freeze(dirs, true);
    Status moved = Ok();
    for (pid_t p : CgroupPids(dirs))
      if (auto s = Join(dirs[i], p); !s && moved) moved = s;
    if (!was_frozen) (void)Freeze(dirs, false);
    TRY(moved);
  }
  return Ok();
}

std::vector<pid_t> CgroupPids(const std::vector<std::filesystem::path>& dirs) {
  std::vector<pid_t> pids;
  for (const auto& d : dirs) {
    if (Escapes(d)) continue;
    auto text = fs::ReadFile(d / "cgroup.procs");
    if (!text || text->empty()) continue;
    std::istringstream in(*text);
    pid_t p;
    while (in >> p) pids.push_back(p);
    if (!pids.empty()) break;
  }
  return pids;
}

Status Freeze(const std::vector<std::filesystem::path>& dirs, bool frozen) {
  for (const auto& d : dirs) {
    if (Escapes(d)) continue;
    if (fs::Exists(d / "freezer.state")) return Write(d / "freezer.state", frozen ? "FROZEN" : "THAWED");
    if (fs::Exists(d / "cgroup.freeze")) return Write(d / "cgroup.freeze", frozen ? "1" : "0");
  }
  return MakeError("no freezer cgroup for this container", ENOTSUP);
}

Status DestroyCgroups(const std::vector<std::filesystem::path>& dirs) {
  // Rounds because a task may fork between the read and the kill; each round waits on the
  // pidfds of the ones it killed (an exited task has left cgroup.procs: works on v1, which
  // has no cgroup.events to poll). Two seconds in all: then rmdir reports what is left.
  auto deadline = process::Clock::now() + std::chrono::seconds(2);
  for (int round = 0; round < 50 && process::Clock::now() < deadline; ++round) {
    auto pids = CgroupPids(dirs);
    if (pids.empty()) break;
    (void)Freeze(dirs, false);  // a frozen task cannot die
    (void)process::KillAndAwait(pids, std::chrono::ceil<std::chrono::milliseconds>(deadline - process::Clock::now()));
  }
  std::string err;
  for (const auto& d : dirs)
    if (!Escapes(d) && ::rmdir(d.c_str()) != 0 && errno != ENOENT) err += (err.empty() ? "" : "; ") + ErrnoError("rmdir " + d.string()).msg;
  if (!err.empty()) return MakeError(err, EBUSY);
  return Ok();
}

}  // namespace sandshim::native
