#include "shim/net/secret_bytes.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include <openssl/crypto.h>

namespace sandshim::net {

void Wipe(void* p, size_t n) {
  if (p && n) OPENSSL_cleanse(p, n);
}

Result<SecretBytes> SecretBytes::From(std::string_view data) {
  SecretBytes s;
  size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  s.mapped_ = (data.size() / page + 1) * page;
  void* m = ::mmap(nullptr, s.mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return ErrnoError("secret: mmap");
  s.data_ = static_cast<char*>(m);
  (void)::madvise(m, s.mapped_, MADV_DONTDUMP);
  (void)::madvise(m, s.mapped_, MADV_WIPEONFORK);  // a forked child never holds it
  (void)::mlock(m, s.mapped_);
  std::memcpy(s.data_, data.data(), data.size());
  s.size_ = data.size();
  return s;
}

SecretBytes::SecretBytes(SecretBytes&& o) noexcept : data_(o.data_), size_(o.size_), mapped_(o.mapped_) {
  o.data_ = nullptr;
  o.size_ = o.mapped_ = 0;
}

SecretBytes& SecretBytes::operator=(SecretBytes&& o) noexcept {
  if (this != &o) {
    Free();
    data_ = o.data_;
    size_ = o.size_;
    mapped_ = o.mapped_;
    o.data_ = nullptr;
    o.size_ = o.mapped_ = 0;
  }
  return *this;
}

SecretBytes::~SecretBytes() { Free(); }

void SecretBytes::Free() {
  if (!data_) return;
  Wipe(data_, mapped_);
  ::munlock(data_, mapped_);
  ::munmap(data_, mapped_);
  data_ = nullptr;
  size_ = mapped_ = 0;
}

Result<SecretBytes> CheckedValue(std::string_view name, std::string_view raw) {
  if (raw.ends_with("\r\n")) raw.remove_suffix(2);
  else if (raw.ends_with('\n')) raw.remove_suffix(1);
  std::string who = "secret " + std::string(name);
  if (raw.empty()) return MakeError(who + ": the value is empty", EINVAL);
  if (raw.size() > kMaxSecretBytes)
    return MakeError(who + ": the value is longer than " + std::to_string(kMaxSecretBytes) + " bytes", EINVAL);
  if (raw.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos)
    return MakeError(who + ": the value holds a line break or NUL (it goes into an HTTP header)", EINVAL);
  return SecretBytes::From(raw);
}

}  // namespace sandshim::net
