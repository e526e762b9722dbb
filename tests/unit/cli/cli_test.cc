// The CLI's word scan that lets it register only the verb a command line names.
#include <doctest/doctest.h>

#include "shim/cli/verbs.h"

using namespace sandshim;

namespace sandshim::cli {
// main_app.cc's own global options (defined there, declared here for the test alone).
void AddGlobalOptions(CLI::App& app, GlobalOpts& g);
}  // namespace sandshim::cli

// Leading words of args, scanned against the real global options, as main_app does.
static std::vector<std::string> Words(std::vector<std::string> args, size_t max = 2) {
  CLI::App app;
  cli::GlobalOpts g;
  cli::AddGlobalOptions(app, g);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return cli::LeadingWords(app, static_cast<int>(argv.size()), argv.data(), max);
}

TEST_CASE("cli: every global option that takes a value is one the word scan skips with its value") {
  CLI::App app;
  cli::GlobalOpts g;
  cli::AddGlobalOptions(app, g);
  const std::vector<std::string> want{"state", "id"};
  size_t with_value = 0;
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_expected_min() == 0 || o->get_lnames().empty()) continue;  // flags (and --help)
    ++with_value;
    std::string name = "--" + o->get_lnames().front();
    CHECK_MESSAGE(Words({"sandshim", name, "VALUE", "state", "id"}) == want, name);
    CHECK_MESSAGE(Words({"sandshim", name + "=VALUE", "state", "id"}) == want, name);
  }
  CHECK(with_value >= 5);  // --root, --log, --log-format, --backend, --runsc-flag at least
}

TEST_CASE("cli: leading words skip global options and their values, stop at --") {
  using V = std::vector<std::string>;
  CHECK(Words({"sandshim", "--root", "/run/x", "--backend", "gvisor", "session", "exec", "id", "--", "ls"}) ==
        V{"session", "exec"});
  CHECK(Words({"sandshim", "--root=/run/x", "--log", "/l", "--log-format", "json", "create", "--bundle", "b", "id"}) ==
        V{"create", "b"});
  CHECK(Words({"sandshim", "--debug", "state", "id"}, 1) == V{"state"});
  CHECK(Words({"sandshim", "--unknown", "state"}) == V{"state"});
  CHECK(Words({"sandshim", "--", "session"}).empty());
  CHECK(Words({"sandshim", "--runsc-flag", "--network=none", "kill", "c"}) == V{"kill", "c"});
  CHECK(Words({"sandshim"}).empty());
}

TEST_CASE("cli: a named verb registers alone; an unknown or missing one registers all") {
  CLI::App app;
  cli::GlobalOpts g;
  std::vector<std::string> added;
  auto table = [&](cli::Verbs& v) {
    v.AddNamed(0, {{{"create"}, [&] { added.push_back("create"); }},
                   {{"pause", "resume"}, [&] { added.push_back("pause/resume"); }},
                   {{"session"}, [&] { added.push_back("session"); }}});
  };
  cli::Verbs named{app, g, {}, {"resume"}};
  table(named);
  CHECK(added == std::vector<std::string>{"pause/resume"});
  added.clear();
  cli::Verbs unknown{app, g, {}, {"bogus"}};
  table(unknown);
  CHECK(added.size() == 3);
  added.clear();
  cli::Verbs none{app, g, {}, {}};
  table(none);
  CHECK(added.size() == 3);
}

#include "shim/cli/env_arg.h"

TEST_CASE("L3: --env KEY takes the value from sandshim's environment, KEY=VALUE as given") {
  ::setenv("SANDSHIM_TEST_SECRET", "s3cr=t", 1);
  CHECK(cli::ResolveEnvArg("A=b").value() == "A=b");
  CHECK(cli::ResolveEnvArg("A=").value() == "A=");
  CHECK(cli::ResolveEnvArg("SANDSHIM_TEST_SECRET").value() == "SANDSHIM_TEST_SECRET=s3cr=t");
  ::unsetenv("SANDSHIM_TEST_SECRET");
  CHECK_FALSE(cli::ResolveEnvArg("SANDSHIM_TEST_SECRET").ok());  // unset: an error, not dropped
  CHECK_FALSE(cli::ResolveEnvArg("").ok());
  CHECK_FALSE(cli::ResolveEnvArg("=v").ok());
}
