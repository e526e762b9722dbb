// The CLI's shape: each verb lives in its own file and registers itself with Register<Verb>():
// it adds its subcommand and options to the CLI11 app and a function that runs after parsing.
// A verb only parses, calls runtime::Containers, and maps the result to an exit code.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "shim/core/result.h"
#include "shim/runtime/containers.h"

namespace sandshim::cli {

struct GlobalOpts {
  std::string root = "/run/sandshim";
  std::string log_file;
  std::string log_format = "text";
  bool debug = false;
  bool systemd_cgroup = false;  // accepted for runc compatibility; cgroups are the backend's business
  std::string backend;
  std::vector<std::string> runsc_flags;
};

using VerbFn = std::function<int()>;

struct Verbs {
  CLI::App& app;
  const GlobalOpts& global;
  std::map<const CLI::App*, VerbFn> fns;

  // Adds a subcommand whose fn runs once the command line is parsed.
  CLI::App* Add(const std::string& name, const std::string& help, VerbFn fn, CLI::App* parent = nullptr);
};

// The runtime's options from the global flags and the config file.
Result<runtime::Options> RuntimeOptions(const GlobalOpts& g);
// Builds the runtime for the global options (config file + flags).
Result<runtime::Containers> OpenContainers(const GlobalOpts& g);
// Logs a failed result as one error line (stderr + --log) and returns the exit code for it.
int ExitWith(const Status& s);
template <typename T>
int ExitWith(const Result<T>& r) {
  return r ? 0 : ExitWith(Status(r.error()));
}
// Prints JSON to stdout followed by a newline.
void PrintJson(const boost::json::value& v, bool pretty = false);
// A gc report (containers or sessions): "removed ..." lines or {"removed": [], "errors": []};
// exit status 1 if any error.
int PrintGcReport(const std::vector<std::string>& removed, const std::vector<std::string>& errors, bool json,
                  std::string_view verb);

void RegisterCreate(Verbs& v);
void RegisterStart(Verbs& v);
void RegisterRun(Verbs& v);
void RegisterState(Verbs& v);
void RegisterKill(Verbs& v);
void RegisterDelete(Verbs& v);
void RegisterExec(Verbs& v);
void RegisterPs(Verbs& v);
void RegisterList(Verbs& v);
void RegisterFeatures(Verbs& v);
void RegisterSpec(Verbs& v);
void RegisterPauseResume(Verbs& v);
void RegisterUpdate(Verbs& v);
void RegisterEvents(Verbs& v);
void RegisterGc(Verbs& v);
void RegisterDoctor(Verbs& v);
void RegisterSession(Verbs& v);
void RegisterMetrics(Verbs& v);
void RegisterRootfs(Verbs& v);
void RegisterProxy(Verbs& v);

// The whole program: parse, set up logging, run the chosen verb.
int Main(int argc, char** argv);

}  // namespace sandshim::cli
