#include "shim/session/store/audit.h"

#include <fcntl.h>
#include <unistd.h>

#include "shim/core/fs.h"
#include "shim/core/log.h"
#include "shim/core/unique_fd.h"

namespace sandshim::session {

Status AppendAudit(const std::filesystem::path& file, std::string_view event, boost::json::object fields) {
  if (file.empty()) return Ok();
  TRY(fs::MkdirAll(file.parent_path(), 0700));
  boost::json::object line{{"ts", log::NowRfc3339()}, {"event", event}};
  for (auto& [k, v] : fields) line[k] = std::move(v);
  std::string text = boost::json::serialize(line) + "\n";
  UniqueFd fd(::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) return ErrnoError("audit " + file.string());
  if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    return ErrnoError("audit " + file.string());
  return Ok();
}

}  // namespace sandshim::session
