#include "shim/core/passwd_home.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>

#include "shim/core/unique_fd.h"

namespace sandshim {

std::string HomeFromPasswd(std::string_view passwd, uid_t uid) {
  const std::string want = std::to_string(uid);
  size_t pos = 0;
  while (pos < passwd.size()) {
    size_t end = passwd.find('\n', pos);
    if (end == std::string_view::npos) end = passwd.size();
    std::string_view line = passwd.substr(pos, end - pos);
    pos = end + 1;
    // name:password:uid:gid:gecos:home:shell
    std::vector<std::string_view> f;
    for (size_t s = 0;;) {
      size_t c = line.find(':', s);
      f.push_back(line.substr(s, c == std::string_view::npos ? std::string_view::npos : c - s));
      if (c == std::string_view::npos) break;
      s = c + 1;
    }
    if (f.size() >= 6 && f[2] == want && !f[5].empty()) return std::string(f[5]);
  }
  return "/";
}

std::vector<std::string> EnvWithHome(const std::vector<std::string>& env, uid_t uid, const char* passwd_path) {
  for (const auto& e : env)
    if (e.rfind("HOME=", 0) == 0) return env;
  // The container's root is already ours here, so links resolve inside it. A passwd
  // file that cannot be read gives "/", as runc's lookup does.
  std::string text;
  UniqueFd fd(::open(passwd_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  std::array<char, 4096> buf;
  ssize_t n;
  while (fd.valid() && text.size() < (1 << 20) && (n = ::read(fd.get(), buf.data(), buf.size())) > 0)
    text.append(buf.data(), static_cast<size_t>(n));
  auto out = env;
  out.push_back("HOME=" + HomeFromPasswd(text, uid));
  return out;
}

}  // namespace sandshim
