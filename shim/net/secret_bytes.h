// A secret's value in memory: in pages of its own that are locked (never swapped), left out
// of core dumps (MADV_DONTDUMP) and wiped when freed. Move-only; no copy can slip into a
// std::string by accident (View() is the one way to read it).
#pragma once

#include <cstddef>
#include <string_view>

#include "shim/core/result.h"

namespace sandshim::net {

class SecretBytes {
 public:
  SecretBytes() = default;
  // Copies data into fresh locked pages. Locking is best effort (RLIMIT_MEMLOCK): a value
  // that cannot be locked is still wiped and kept out of dumps.
  static Result<SecretBytes> From(std::string_view data);
  SecretBytes(SecretBytes&& o) noexcept;
  SecretBytes& operator=(SecretBytes&& o) noexcept;
  SecretBytes(const SecretBytes&) = delete;
  SecretBytes& operator=(const SecretBytes&) = delete;
  ~SecretBytes();

  std::string_view View() const { return {data_, size_}; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  void Free();
  char* data_ = nullptr;
  size_t size_ = 0, mapped_ = 0;
};

// Upper bound on one value: a token or key, not a file.
inline constexpr size_t kMaxSecretBytes = 16 * 1024;

// One value as read from its source: a single trailing newline (from `echo > file`) is
// dropped; empty, over kMaxSecretBytes, or holding CR, LF or NUL (which would split a header)
// is refused, naming the secret, never showing the value.
Result<SecretBytes> CheckedValue(std::string_view name, std::string_view raw);

// Wipes a buffer that held a value (OPENSSL_cleanse: not optimised away).
void Wipe(void* p, size_t n);

}  // namespace sandshim::net
