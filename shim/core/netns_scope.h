// Runs the calling thread inside another network namespace for a while. setns(CLONE_NEWNET)
// moves only the calling thread; what it forks or spawns meanwhile starts in that namespace,
// and sockets it creates keep that namespace for life (an abstract unix name is looked up in
// the namespace of the socket that connects).
#pragma once

#include <filesystem>

#include "shim/core/result.h"
#include "shim/core/unique_fd.h"

namespace sandshim {

class NetnsScope {
 public:
  // An empty path enters nothing (a container made before it had a control namespace).
  static Result<NetnsScope> Enter(const std::filesystem::path& ns);
  ~NetnsScope();  // back to the namespace the thread came from
  NetnsScope(NetnsScope&&) = default;
  NetnsScope& operator=(NetnsScope&&) = delete;

 private:
  explicit NetnsScope(UniqueFd back) : back_(std::move(back)) {}
  UniqueFd back_;
};

}  // namespace sandshim
