#include "rootfs-builder/blob.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rootfs-builder/digest.h"
#include "rootfs-builder/escape.h"

namespace sandshim::rootfs {

Result<UniqueFd> OpenBlob(const std::filesystem::path& dir, const std::string& rel) {
  UniqueFd root(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) return ErrnoError("open " + dir.string());
  struct open_how how {};
  how.flags = O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  UniqueFd fd(static_cast<int>(::syscall(SYS_openat2, root.get(), rel.c_str(), &how, sizeof how)));
  if (!fd.valid()) {
    if (errno == ELOOP || errno == EXDEV) return MakeError(Quoted(rel) + ": a symlink, or outside the image layout", ELOOP);
    return ErrnoError("open " + Quoted(rel));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return ErrnoError("stat " + Quoted(rel));
  if (!S_ISREG(st.st_mode)) return MakeError(Quoted(rel) + ": not a regular file", EINVAL);
  return fd;
}

Result<std::string> ReadSmallBlob(const std::filesystem::path& dir, const std::string& rel, size_t max) {
  UniqueFd fd = TRY(OpenBlob(dir, rel));
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("read " + Quoted(rel));
    if (n == 0) return out;
    if (out.size() + static_cast<size_t>(n) > max)
      return MakeError(Quoted(rel) + ": larger than " + std::to_string(max) + " bytes", EFBIG);
    out.append(buf, static_cast<size_t>(n));
  }
}

Result<std::string> Sha256Fd(int fd, uint64_t* size) {
  Sha256 h;
  uint64_t total = 0;
  std::string buf(1 << 20, '\0');
  for (;;) {
    ssize_t n = ::pread(fd, buf.data(), buf.size(), static_cast<off_t>(total));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("read");
    if (n == 0) break;
    h.Update(buf.data(), static_cast<size_t>(n));
    total += static_cast<uint64_t>(n);
  }
  if (size) *size = total;
  return h.HexFinal();
}

static Status Compare(const std::string& got, uint64_t got_size, std::string_view digest, int64_t size) {
  std::string want = TRY(ParseDigest(digest));
  if (size >= 0 && got_size != static_cast<uint64_t>(size))
    return MakeError("blob " + std::string(digest) + ": size " + std::to_string(got_size) + ", manifest says " +
                         std::to_string(size),
                     EBADMSG);
  if (got != want)
    return MakeError("blob " + std::string(digest) + ": digest mismatch: content is sha256:" + got, EBADMSG);
  return Ok();
}

Status VerifyBytes(std::string_view bytes, std::string_view digest, int64_t size) {
  return Compare(Sha256Hex(bytes), bytes.size(), digest, size);
}

Status VerifyFd(int fd, std::string_view digest, int64_t size) {
  uint64_t got_size = 0;
  std::string got = TRY(Sha256Fd(fd, &got_size));
  return Compare(got, got_size, digest, size);
}

}  // namespace sandshim::rootfs
