#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <set>
#include <string>

#include "sandshim_commit.h"  // generated (CMakeLists.txt): SANDSHIM_COMMIT
#include "shim/cli/verbs.h"
#include "shim/core/log.h"
#include "shim/core/proc.h"

namespace sandshim::cli {

// Not in the anonymous namespace: tests/unit/cli_test.cc scans command lines with exactly
// this option list (it declares the function itself), so a new global option that takes a
// value cannot silently be read as the verb.
void AddGlobalOptions(CLI::App& app, GlobalOpts& g);
void AddGlobalOptions(CLI::App& app, GlobalOpts& g) {
  // Callers stack flags (docker's runtimeArgs, then the shim's own): the last one wins, as
  // with runc, instead of failing on a repeat.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--root", g.root, "root directory for container state")->capture_default_str();
  app.add_option("--log", g.log_file, "append logs to this file (runc-compatible)");
  app.add_option("--log-format", g.log_format, "log format: text or json")->check(CLI::IsMember({"text", "json"}));
  app.add_flag("--debug", g.debug, "debug logging (also runsc's, under the container's state dir)");
  app.add_flag("--systemd-cgroup", g.systemd_cgroup, "accepted for runc compatibility");
  app.add_option("--backend", g.backend, "auto, gvisor or native (default: config file, else auto)")
      ->check(CLI::IsMember({"auto", "gvisor", "native"}));
  app.add_option("--runsc-flag", g.runsc_flags, "extra global runsc flag, e.g. --runsc-flag=--network=none (repeatable)")
      ->allow_extra_args(false);
}

namespace {

// A command line we cannot parse still owes containerd its JSON error line in --log, found
// here by hand since the parser gave up.
void LogParseError(int argc, char** argv, const std::string& msg) {
  log::Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string next = i + 1 < argc ? argv[i + 1] : "";
    if (a == "--log") o.file = next;
    else if (a.rfind("--log=", 0) == 0) o.file = a.substr(6);
    else if (a == "--log-format") log::ParseFormat(next, &o.format);
    else if (a.rfind("--log-format=", 0) == 0) log::ParseFormat(a.substr(13), &o.format);
  }
  log::Init(o);
  log::Error(msg + " (see sandshim --help)");
}

void PrintVersion() {
  std::cout << "sandshim version " << SANDSHIM_VERSION << "\n"
            << "commit: " << SANDSHIM_COMMIT << "\n"
            << "spec: 1.0.2\n";
}

const CLI::App* Chosen(const CLI::App& app, const Verbs& verbs) {
  for (const CLI::App* sub : app.get_subcommands()) {
    if (const CLI::App* deeper = Chosen(*sub, verbs)) return deeper;
    if (verbs.fns.contains(sub)) return sub;
  }
  return nullptr;
}

// A user who cannot read or write the state root would otherwise be told "does not exist"
// or get an empty table with status 0 (review N8): say what it is, once, before the verb.
// Verbs that keep no state (features, spec, the relay `proxy` running as its own uid,
// policy, doctor, rootfs with its own cache) are left alone.
std::string StateAccessError(const CLI::App& app, const CLI::App* chosen, const std::filesystem::path& root) {
  const CLI::App* top = chosen;
  while (top->get_parent() && top->get_parent() != &app) top = top->get_parent();
  static const std::set<std::string> kStateless{"features", "spec", "proxy", "policy", "doctor", "rootfs"};
  if (kStateless.contains(top->get_name()) || ::geteuid() == 0) return "";
  if (::access(root.c_str(), F_OK) != 0 || ::access(root.c_str(), R_OK | W_OK | X_OK) == 0) return "";
  return "permission denied: the state root " + root.string() + " is not yours (run sandshim as root, or give --root)";
}

}  // namespace

int Main(int argc, char** argv) {
  CLI::App app{"sandshim: a runc-compatible OCI runtime that runs containers in gVisor", "sandshim"};
  GlobalOpts g;
  AddGlobalOptions(app, g);
  bool version = false;
  app.add_flag("-v,--version", version, "print the version");
  app.require_subcommand(0, 1);
  Verbs verbs{app, g, {}, LeadingWords(app, argc, argv, 2)};
  auto reg = [&](void (*add)(Verbs&)) { return [&verbs, add] { add(verbs); }; };
  verbs.AddNamed(0, {{{"create"}, reg(RegisterCreate)},
                     {{"start"}, reg(RegisterStart)},
                     {{"run"}, reg(RegisterRun)},
                     {{"state"}, reg(RegisterState)},
                     {{"kill"}, reg(RegisterKill)},
                     {{"delete"}, reg(RegisterDelete)},
                     {{"exec"}, reg(RegisterExec)},
                     {{"ps"}, reg(RegisterPs)},
                     {{"list"}, reg(RegisterList)},
                     {{"features"}, reg(RegisterFeatures)},
                     {{"spec"}, reg(RegisterSpec)},
                     {{"pause", "resume"}, reg(RegisterPauseResume)},
                     {{"update"}, reg(RegisterUpdate)},
                     {{"events"}, reg(RegisterEvents)},
                     {{"gc"}, reg(RegisterGc)},
                     {{"doctor"}, reg(RegisterDoctor)},
                     {{"session"}, reg(RegisterSession)},
                     {{"metrics"}, reg(RegisterMetrics)},
                     {{"rootfs"}, reg(RegisterRootfs)},
                     {{"proxy"}, reg(RegisterProxy)},
                     {{"policy"}, reg(RegisterPolicy)},
                     {{"pool"}, reg(RegisterPool)}});
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    LogParseError(argc, argv, e.what());
    return 2;
  }
  if (version) {
    PrintVersion();
    return 0;
  }
  log::Format fmt = log::Format::kText;
  log::ParseFormat(g.log_format, &fmt);
  log::Init({g.log_file, fmt, g.debug, false});
  const CLI::App* chosen = Chosen(app, verbs);
  if (!chosen) {
    std::cerr << app.help();
    return 2;
  }
  if (auto denied = StateAccessError(app, chosen, g.root); !denied.empty()) {
    log::Error(denied);
    return 1;
  }
  // runsc's sandbox and gofer outlive the runsc that starts them; as subreaper we collect
  // them (and hand them to our own subreaper, e.g. containerd's shim, when we exit) instead
  // of PID 1, which on this host reaps slowly.
  proc::BecomeSubreaper();
  return verbs.fns.at(chosen)();
}

}  // namespace sandshim::cli
