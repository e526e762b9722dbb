// The options create and run share (runc's set), and the request they turn into.
#pragma once

#include "shim/cli/verbs.h"

namespace sandshim::cli {

struct CreateOptions {
  std::string id;
  std::string bundle = ".";
  std::string pid_file;
  std::string console_socket;
  int preserve_fds = 0;
  bool no_pivot = false;
  bool no_new_keyring = false;
  bool detach = false;
};

void AddCreateOptions(CLI::App* sub, CreateOptions& o);
// Loads <bundle>/config.json and resolves relative paths against the working directory.
Result<runtime::CreateRequest> BuildCreateRequest(const CreateOptions& o);

}  // namespace sandshim::cli
