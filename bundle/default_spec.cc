#include "bundle/default_spec.h"

#include "bundle/default_seccomp.h"

namespace sandshim::bundle {
namespace json = boost::json;

static json::array Strings(std::initializer_list<const char*> l) {
  json::array a;
  for (const char* s : l) a.emplace_back(s);
  return a;
}

static json::object Mount(const char* dst, const char* type, const char* src, std::initializer_list<const char*> opts) {
  return {{"destination", dst}, {"type", type}, {"source", src}, {"options", Strings(opts)}};
}

json::object DefaultSpec(const std::vector<std::string>& args, bool terminal) {
  auto caps = Strings({"CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"});
  std::vector<std::string> bounding;
  for (const auto& c : caps) bounding.emplace_back(c.as_string());
  json::array argv;
  for (const auto& a : args) argv.emplace_back(a);
  return {
      {"ociVersion", "1.0.2"},
      {"process",
       {{"terminal", terminal},
        {"user", {{"uid", 0}, {"gid", 0}}},
        {"args", std::move(argv)},
        {"env", Strings({"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "TERM=xterm"})},
        {"cwd", "/"},
        {"capabilities", {{"bounding", caps}, {"effective", caps}, {"permitted", caps}, {"ambient", caps}}},
        {"rlimits", json::array{json::object{{"type", "RLIMIT_NOFILE"}, {"hard", 1024}, {"soft", 1024}}}},
        {"noNewPrivileges", true}}},
      {"root", {{"path", "rootfs"}, {"readonly", true}}},
      {"hostname", "sandshim"},
      {"mounts", json::array{Mount("/proc", "proc", "proc", {}),
                             Mount("/dev", "tmpfs", "tmpfs", {"nosuid", "strictatime", "mode=755", "size=65536k"}),
                             Mount("/dev/pts", "devpts", "devpts",
                                   {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"}),
                             Mount("/dev/shm", "tmpfs", "shm", {"nosuid", "noexec", "nodev", "mode=1777", "size=65536k"}),
                             Mount("/dev/mqueue", "mqueue", "mqueue", {"nosuid", "noexec", "nodev"}),
                             Mount("/sys", "sysfs", "sysfs", {"nosuid", "noexec", "nodev", "ro"})}},
      {"linux",
       {{"resources", {{"devices", json::array{json::object{{"allow", false}, {"access", "rwm"}}}}}},
        {"namespaces", json::array{json::object{{"type", "pid"}}, json::object{{"type", "network"}},
                                   json::object{{"type", "ipc"}}, json::object{{"type", "uts"}},
                                   json::object{{"type", "mount"}}}},
        {"maskedPaths", Strings({"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
                                 "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware",
                                 "/proc/scsi"})},
        {"readonlyPaths", Strings({"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"})},
        // runc spec has none; we ship Docker's default (H1: without it a container may
        // make user namespaces, use keyrings, bpf, io_uring...).
        {"seccomp", DefaultSeccomp(bounding)}}}};
}

}  // namespace sandshim::bundle
