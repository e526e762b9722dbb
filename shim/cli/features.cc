// `features`: what this runtime supports, in the runtime-spec "features" document shape.
#include "shim/cli/verbs.h"

namespace sandshim::cli {

static boost::json::array Strings(std::initializer_list<const char*> l) {
  boost::json::array a;
  for (const char* s : l) a.emplace_back(s);
  return a;
}

void RegisterFeatures(Verbs& v) {
  v.Add("features", "print the runtime's features as JSON", [] {
    boost::json::object f{
        {"ociVersionMin", "1.0.0"},
        {"ociVersionMax", "1.1.0"},
        {"hooks", Strings({"prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"})},
        {"mountOptions", Strings({"ro", "rw", "bind", "rbind", "nosuid", "nodev", "noexec", "relatime", "noatime",
                                  "mode", "size", "private", "rprivate", "slave", "rslave"})},
        {"linux",
         {{"namespaces", Strings({"cgroup", "ipc", "mount", "network", "pid", "user", "uts"})},
          {"capabilities", Strings({"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL", "CAP_SETGID",
                                    "CAP_SETUID", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE", "CAP_NET_RAW", "CAP_SYS_CHROOT",
                                    "CAP_MKNOD", "CAP_AUDIT_WRITE", "CAP_SETFCAP"})},
          {"cgroup", {{"v1", true}, {"v2", true}, {"systemd", false}, {"systemdUser", false}}},
          {"apparmor", {{"enabled", false}}},
          {"selinux", {{"enabled", false}}}}},
        {"annotations", {{"dev.sandshim.backends", "gvisor"}, {"dev.sandshim.backend.default", "auto"}}}};
    PrintJson(f, true);
    return 0;
  });
}

}  // namespace sandshim::cli
