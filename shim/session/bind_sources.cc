#include "shim/session/bind_sources.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/core/unique_fd.h"

namespace sandshim::session {
namespace json = boost::json;

// O_PATH, with no symlink (nor /proc magic link) in any component: the path must lead to
// the object itself.
static Result<struct stat> StatNoSymlinks(const std::string& path) {
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  UniqueFd fd(static_cast<int>(::syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how)));
  if (!fd.valid()) return ErrnoError("open " + path + " without following symlinks");
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoError("stat " + path);
  return st;
}

Result<json::object> PinSource(const std::string& source) {
  std::error_code ec;
  auto canonical = std::filesystem::canonical(source, ec);
  if (ec) return MakeError("bind source " + source + ": " + ec.message(), ec.value());
  auto st = TRY(StatNoSymlinks(canonical.string()));
  return json::object{{"path", canonical.string()},
                      {"dev", static_cast<uint64_t>(st.st_dev)},
                      {"ino", static_cast<uint64_t>(st.st_ino)}};
}

Status VerifyPinned(const json::array& pins) {
  for (const auto& v : pins) {
    const auto* o = v.if_object();
    if (!o || !o->contains("path") || !o->at("path").is_string()) return MakeError("sources.json: bad entry", EINVAL);
    std::string path(o->at("path").get_string());
    auto st = StatNoSymlinks(path);
    if (!st) return st.error().Wrap("bind source changed since create");
    boost::system::error_code e1, e2;
    auto dev = o->at("dev").to_number<uint64_t>(e1);
    auto ino = o->at("ino").to_number<uint64_t>(e2);
    if (e1 || e2 || dev != static_cast<uint64_t>(st->st_dev) || ino != static_cast<uint64_t>(st->st_ino))
      return MakeError("bind source " + path + " is not the directory pinned at create (replaced?)", EPERM);
  }
  return Ok();
}

}  // namespace sandshim::session
