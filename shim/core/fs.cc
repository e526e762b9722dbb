#include "shim/core/fs.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <system_error>

#include "shim/core/unique_fd.h"

namespace sandshim::fs {

Result<std::string> ReadFile(const std::filesystem::path& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoError("open " + path.string());
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("read " + path.string());
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

static Status WriteAll(int fd, std::string_view data, const std::string& what) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("write " + what);
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Ok();
}

Status WriteFileAtomic(const std::filesystem::path& path, std::string_view data, mode_t mode, bool sync) {
  std::filesystem::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    // O_EXCL|O_NOFOLLOW: a caller-chosen path (--pid-file) may lie in a directory others
    // can write, where a planted symlink at the temp name would make us write through it. A
    // leftover of a crashed writer with our pid is removed (unlink never follows) once.
    constexpr int kFlags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    UniqueFd fd(::open(tmp.c_str(), kFlags, mode));
    if (!fd.valid() && errno == EEXIST && ::unlink(tmp.c_str()) == 0) fd = UniqueFd(::open(tmp.c_str(), kFlags, mode));
    if (!fd.valid()) return ErrnoError("create " + tmp.string());
    if (auto s = WriteAll(fd.get(), data, tmp.string()); !s) {
      ::unlink(tmp.c_str());
      return s;
    }
    if (::fchmod(fd.get(), mode) != 0 || (sync && ::fsync(fd.get()) != 0)) {
      int err = errno;
      ::unlink(tmp.c_str());
      return ErrnoError("sync " + tmp.string(), err);
    }
  }
  // Not durable: exchange rather than replace. Replacing a file by rename makes ext4 start
  // writing the new one back at once (auto_da_alloc), and unlinking it soon after, as every
  // short-lived state directory is, then waits for that I/O (0.3-5 ms measured on /run).
  // The old content, now under the temp name, was never flushed: it goes cheaply.
  if (!sync) {
    if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0) return Ok();
    if (errno == EEXIST && ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
      ::unlink(tmp.c_str());
      return Ok();
    }
  }
  // EINVAL: a filesystem without these flags.
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return ErrnoError("rename " + tmp.string(), err);
  }
  if (!sync) return Ok();
  UniqueFd dir(::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.valid()) ::fsync(dir.get());
  return Ok();
}

Status MkdirAll(const std::filesystem::path& path, mode_t mode) {
  // Leaf first: it usually is the only one missing (one syscall instead of one per level).
  if (::mkdir(path.c_str(), mode) == 0) {
    ::chmod(path.c_str(), mode);  // mkdir honours the umask; we want the exact mode
    return Ok();
  }
  if (errno == EEXIST) return Ok();
  if (errno != ENOENT || !path.has_relative_path() || path.parent_path() == path)
    return ErrnoError("mkdir " + path.string());
  TRY(MkdirAll(path.parent_path(), mode));
  if (::mkdir(path.c_str(), mode) != 0 && errno != EEXIST) return ErrnoError("mkdir " + path.string());
  ::chmod(path.c_str(), mode);
  return Ok();
}

Status RemoveAll(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    return MakeError("remove " + path.string() + ": " + ec.message(), ec.value());
  return Ok();
}

bool Exists(const std::filesystem::path& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

}  // namespace sandshim::fs
