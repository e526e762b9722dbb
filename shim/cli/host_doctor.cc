#include "shim/cli/host_doctor.h"

#include <seccomp.h>

#include "shim/core/fs.h"
#include "shim/linux/cgroups.h"
#include "shim/runsc/checkpoint_probe.h"
#include "shim/runsc/probe.h"

namespace sandshim::runtime {
namespace {

// What this runsc lacks, from the probe's verdict (never from its version string).
std::string Lacks(const runsc::ProbeResult& p) {
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : "; ") + s; };
  if (p.control.empty())
    add("no control server sandshim speaks: every exec goes through `runsc exec` (2-3x slower), session exec --shell "
        "and credential contexts' pod containers are unavailable");
  if (!p.HasFlag("overlay2"))
    add("no --overlay2: a docker/podman container's root filesystem writes follow this runsc's default");
  if (p.sandbox_uid == 65534)
    add("a sandbox user of its own: it runs every sandbox as host uid 65534, so host nobody can stop or kill any "
        "session's sandbox (no flag or spec changes that on this runsc: docs/RUNSC.md)");
  if (p.platform != "systrap") add("platform " + p.platform + " (systrap, the fastest on most hosts, did not boot)");
  return out;
}

Finding Gvisor(const Config& c) {
  auto p = runsc::Probe(c.runsc, c.cache_dir, c.platform);
  Finding f{"gvisor", p.usable, "", ""};
  if (!p.usable) {
    f.detail = p.error;
    f.advice = c.platform.empty()
                   ? "install runsc (apt-get install runsc) or point \"runsc\" in the config at it; until then `auto` "
                     "uses the native runtime and `--backend gvisor` refuses"
                   : "the config forces platform \"" + c.platform + "\", which cannot boot here: remove it to let "
                     "sandshim probe one (until then every gVisor container fails, `auto` included)";
    return f;
  }
  f.detail = p.version + ", platform " + p.platform + ", control server " +
             (p.control.empty() ? std::string("none") : p.control) +
             (p.sandbox_uid < 0 ? std::string() : ", sandbox uid " + std::to_string(p.sandbox_uid));
  // #35: what session pause needs, probed by doing it (a few seconds, once per binary).
  auto ck = runsc::ProbeCheckpoint(p, c.cache_dir);
  f.detail += std::string(", snapshots ") + (ck.works ? "work (session pause/resume)" : "do not work");
  for (const auto& n : p.notes) f.detail += "; " + n;
  f.advice = "tested: Debian 12's runsc 0.0~20221219 and Debian 13's 0.0~20240729 (trixie build; Debian sid's Go 1.26 "
             "rebuild of it panics in the Sentry)";
  auto lacks = Lacks(p);
  if (!ck.works)
    lacks += (lacks.empty() ? "" : "; ") + std::string("checkpoint/restore, so session pause refuses (") + ck.why + ")";
  if (!lacks.empty()) f.advice += ". This runsc lacks: " + lacks;
  return f;
}

Finding Userns() {
  std::string max = fs::ReadFile("/proc/sys/user/max_user_namespaces").value_or("0");
  bool ok = std::strtol(max.c_str(), nullptr, 10) > 0;
  return {"userns", ok, "max_user_namespaces=" + max.substr(0, max.find('\n')),
          ok ? "" : "set user.max_user_namespaces > 0 for specs with a user namespace"};
}

Finding Cgroups() {
  auto hs = native::Hierarchies();
  bool v1 = false, v2 = false;
  for (const auto& h : hs) {
    if (h.v2) v2 = true;
    else if (!h.controllers.empty()) v1 = true;
  }
  std::string layout = v1 && v2 ? "hybrid (v1 controllers + unified mount)" : v2 ? "v2" : v1 ? "v1" : "none";
  Finding f{"cgroups", v1 || v2, layout, ""};
  if (v1 && v2) f.advice = "crun refuses this layout; sandshim handles it (limits go to the v1 controllers)";
  if (!v1 && !v2) f.advice = "mount cgroupfs: without it no memory, cpu or pids limits";
  return f;
}

Finding Seccomp() {
  bool kernel = fs::Exists("/proc/sys/kernel/seccomp/actions_avail");
  const scmp_version* v = seccomp_version();
  std::string detail = "libseccomp " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
                       std::to_string(v->micro) + (kernel ? ", kernel filters available" : ", kernel support missing");
  return {"seccomp", kernel, detail, kernel ? "" : "a kernel with CONFIG_SECCOMP_FILTER is needed for native seccomp"};
}

Finding Overlay() {
  bool ok = fs::ReadFile("/proc/filesystems").value_or("").find("overlay") != std::string::npos;
  return {"overlayfs", ok, ok ? "overlay in /proc/filesystems" : "not available",
          ok ? "" : "modprobe overlay (sessions use it for a writable layer on the native backend)"};
}

}  // namespace

std::vector<Finding> Doctor(const Config& config) { return {Gvisor(config), Userns(), Cgroups(), Seccomp(), Overlay()}; }

boost::json::array ToJson(const std::vector<Finding>& fs) {
  boost::json::array a;
  for (const auto& f : fs) a.push_back({{"area", f.area}, {"ok", f.ok}, {"detail", f.detail}, {"advice", f.advice}});
  return a;
}

}  // namespace sandshim::runtime
