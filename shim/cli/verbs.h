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

// One verb's registration, under the names it adds (pause and resume share one).
struct Registrar {
  std::vector<std::string_view> names;
  std::function<void()> add;
};

struct Verbs {
  CLI::App& app;
  const GlobalOpts& global;
  std::map<const CLI::App*, VerbFn> fns;
  // The command line's leading words that are not options: the verb, then its sub-verb.
  std::vector<std::string> words;

  // Adds a subcommand whose fn runs once the command line is parsed.
  CLI::App* Add(const std::string& name, const std::string& help, VerbFn fn, CLI::App* parent = nullptr);
  // Runs only the registrar named by the word at `depth`, or all of them when that word names
  // none (help, a typo: CLI11 then lists or rejects the verbs as usual). Building every verb's
  // options costs a few milliseconds and most of sandshim's start-up allocations, which a
  // short-lived runtime pays on every call (session exec's budget is 5 ms over runsc's).
  void AddNamed(size_t depth, const std::vector<Registrar>& table) const;
};

// The leading non-option words of argv, skipping the values of app's (global) options that
// take one (--root DIR): at most `max` of them, none after "--".
std::vector<std::string> LeadingWords(const CLI::App& app, int argc, char** argv, size_t max);

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
void RegisterPool(Verbs& v);
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
void RegisterPolicy(Verbs& v);  // #19: policy check

// The whole program: parse, set up logging, run the chosen verb.
int Main(int argc, char** argv);

}  // namespace sandshim::cli
