// sha256 through OpenSSL, streamed so multi-gigabyte layers never sit in memory. The
// SHA256_* interface, not EVP: in a static binary EVP_sha256 pulls in OpenSSL 3's whole
// provider machinery (+3.8 MB, measured), SHA256_* only the digest (+35 KB), and the
// native runtime copies this binary into a memfd on every call. Same assembly (SHA-NI). Digests name blobs on disk, so a digest string is validated before it becomes a
// path: "sha256:" and exactly 64 lowercase hex digits, nothing else.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "shim/core/result.h"


namespace sandshim::rootfs {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void Update(const void* data, size_t n);
  void Update(std::string_view s) { Update(s.data(), s.size()); }
  std::string HexFinal();  // 64 lowercase hex digits

 private:
  struct State;
  std::unique_ptr<State> s_;
};

std::string Sha256Hex(std::string_view data);
// Streams the file; also returns its size through *size when given.
Result<std::string> Sha256File(const std::filesystem::path& path, uint64_t* size = nullptr);
// "sha256:<64 hex>" → the hex part; anything else (other algorithms, '/' or ".." that would
// turn a blob name into a path escape) is an error.
Result<std::string> ParseDigest(std::string_view digest);
// Refuses the file unless its sha256 (and size, when size >= 0) match. Error names the file
// and both digests.
Status VerifyBlob(const std::filesystem::path& path, std::string_view digest, int64_t size = -1);

}  // namespace sandshim::rootfs
