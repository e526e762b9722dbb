#include "shim/cli/create_options.h"

namespace sandshim::cli {

void AddCreateOptions(CLI::App* sub, CreateOptions& o) {
  sub->add_option("-b,--bundle", o.bundle, "path to the bundle directory")->capture_default_str();
  sub->add_option("--pid-file", o.pid_file, "write the container's pid here");
  sub->add_option("--console-socket", o.console_socket, "AF_UNIX socket that receives the pty master");
  sub->add_option("--preserve-fds", o.preserve_fds, "pass N extra fds (from 3) to the container");
  sub->add_flag("--no-pivot", o.no_pivot, "do not use pivot_root");
  sub->add_flag("--no-new-keyring", o.no_new_keyring, "do not create a new session keyring");
  sub->add_flag("-d,--detach", o.detach, "detach from the container's process");
  sub->add_option("id", o.id, "container id")->required();
}

Result<runtime::CreateRequest> BuildCreateRequest(const CreateOptions& o) {
  runtime::CreateRequest r;
  r.id = o.id;
  std::error_code ec;
  r.bundle = std::filesystem::absolute(o.bundle, ec).lexically_normal();
  if (r.bundle.string().size() > 1 && r.bundle.string().back() == '/') r.bundle = r.bundle.parent_path();
  r.spec = TRY(bundle::LoadSpec(r.bundle));
  if (!o.pid_file.empty()) r.pid_file = std::filesystem::absolute(o.pid_file, ec);
  if (!o.console_socket.empty()) r.console_socket = std::filesystem::absolute(o.console_socket, ec);
  r.preserve_fds = o.preserve_fds;
  r.no_pivot = o.no_pivot;
  r.no_new_keyring = o.no_new_keyring;
  return r;
}

}  // namespace sandshim::cli
