// busybox: the smallest useful rootfs, from the host's static busybox. Users root and
// user (1000), as sessions run as 1000 by default.
#include <sys/stat.h>
#include <unistd.h>

#include "rootfs-builder/digest.h"
#include "rootfs-builder/sources.h"
#include "shim/core/fs.h"
#include "shim/core/process_run.h"

namespace sandshim::rootfs {

namespace stdfs = std::filesystem;

Result<std::string> BusyboxIdentity(const BuildOptions& o) { return TRY_CTX(Sha256File(o.busybox), "busybox"); }

Result<ImageConfig> BuildBusybox(const BuildOptions& o, const BuildDirs& d) {
  const auto& r = d.rootfs;
  for (const char* dir : {"bin", "sbin", "usr/bin", "usr/sbin", "etc", "root", "home/user", "proc", "sys", "dev",
                          "run", "tmp", "var/tmp", "workspace"})
    TRY(fs::MkdirAll(r / dir, 0755));
  ::chmod((r / "tmp").c_str(), 01777);
  ::chmod((r / "var/tmp").c_str(), 01777);
  ::chmod((r / "root").c_str(), 0700);
  if (::geteuid() == 0) ::chown((r / "home/user").c_str(), 1000, 1000);
  std::error_code ec;
  stdfs::copy_file(o.busybox, r / "bin/busybox", stdfs::copy_options::overwrite_existing, ec);
  if (ec) return MakeError("busybox: copy " + o.busybox + ": " + ec.message(), ec.value());
  ::chmod((r / "bin/busybox").c_str(), 0755);
  // Applets as absolute symlinks, resolved inside the sandbox like busybox --install -s.
  auto list = TRY_CTX(process::Run({.argv = {o.busybox, "--list-full"}}), "busybox --list-full");
  if (!list.Success()) return MakeError("busybox --list-full: " + list.Describe(), EIO);
  size_t pos = 0;
  while (pos < list.out.size()) {
    size_t nl = list.out.find('\n', pos);
    std::string applet = list.out.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? list.out.size() : nl + 1;
    if (applet.empty() || applet == "bin/busybox" || applet.find("..") != std::string::npos) continue;
    TRY(fs::MkdirAll((r / applet).parent_path(), 0755));
    if (::symlink("/bin/busybox", (r / applet).c_str()) != 0 && errno != EEXIST) return ErrnoError("symlink " + applet);
  }
  TRY(fs::WriteFileAtomic(r / "etc/passwd",
                          "root:x:0:0:root:/root:/bin/sh\nuser:x:1000:1000:user:/home/user:/bin/sh\n"
                          "nobody:x:65534:65534:nobody:/nonexistent:/bin/false\n",
                          0644, false));
  TRY(fs::WriteFileAtomic(r / "etc/group", "root:x:0:\nuser:x:1000:\nnogroup:x:65534:\n", 0644, false));
  // Targets for the bind mounts runtimes put over them.
  for (const char* f : {"etc/hosts", "etc/resolv.conf"}) TRY(fs::WriteFileAtomic(r / f, "", 0644, false));
  TRY(fs::WriteFileAtomic(r / "etc/hostname", "sandbox\n", 0644, false));
  ImageConfig c;
  c.env = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin"};
  c.cmd = {"/bin/sh"};
  return c;
}

}  // namespace sandshim::rootfs
