#include "rootfs-builder/digest.h"

// SHA256_* are marked deprecated in OpenSSL 3 in favour of EVP; see digest.h for why.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <fcntl.h>
#include <sys/stat.h>
#include <openssl/sha.h>
#include <unistd.h>

#include "rootfs-builder/blob.h"
#include "rootfs-builder/escape.h"
#include "shim/core/unique_fd.h"

namespace sandshim::rootfs {

struct Sha256::State {
  SHA256_CTX ctx;
};

Sha256::Sha256() : s_(std::make_unique<State>()) { SHA256_Init(&s_->ctx); }
Sha256::~Sha256() = default;
void Sha256::Update(const void* data, size_t n) { SHA256_Update(&s_->ctx, data, n); }

std::string Sha256::HexFinal() {
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256_Final(md, &s_->ctx);
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < SHA256_DIGEST_LENGTH; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 15];
  }
  return out;
}

std::string Sha256Hex(std::string_view data) {
  Sha256 h;
  h.Update(data);
  return h.HexFinal();
}

Result<std::string> Sha256File(const std::filesystem::path& path, uint64_t* size) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoError("open " + path.string());
  Sha256 h;
  uint64_t total = 0;
  std::string buf(1 << 20, '\0');
  for (;;) {
    ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("read " + path.string());
    if (n == 0) break;
    h.Update(buf.data(), static_cast<size_t>(n));
    total += static_cast<uint64_t>(n);
  }
  if (size) *size = total;
  return h.HexFinal();
}

Result<std::string> ParseDigest(std::string_view digest) {
  constexpr std::string_view kPrefix = "sha256:";
  if (digest.substr(0, kPrefix.size()) != kPrefix)
    return MakeError("digest " + Quoted(digest) + ": only sha256 is supported", EINVAL);
  std::string_view hex = digest.substr(kPrefix.size());
  bool ok = hex.size() == 64;
  for (char c : hex) ok = ok && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
  if (!ok) return MakeError("digest " + Quoted(digest) + ": not 64 lowercase hex digits", EINVAL);
  return std::string(hex);
}

Status VerifyBlob(const std::filesystem::path& path, std::string_view digest, int64_t size) {
  // Not through a FIFO or device: a regular file or an error (see blob.h).
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) return ErrnoError("open " + path.string());
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return MakeError(path.string() + ": not a regular file", EINVAL);
  return VerifyFd(fd.get(), digest, size);
}

}  // namespace sandshim::rootfs
