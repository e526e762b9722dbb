#include <cstdlib>
#include <cstring>
#include <iostream>

#include "shim/cli/backends.h"
#include "shim/cli/verbs.h"
#include "shim/core/log.h"

namespace sandshim::cli {

CLI::App* Verbs::Add(const std::string& name, const std::string& help, VerbFn fn, CLI::App* parent) {
  CLI::App* sub = (parent ? parent : &app)->add_subcommand(name, help);
  fns[sub] = std::move(fn);
  return sub;
}

void Verbs::AddNamed(size_t depth, const std::vector<Registrar>& table) const {
  if (depth < words.size())
    for (const auto& r : table)
      for (auto name : r.names)
        if (name == words[depth]) return r.add();
  for (const auto& r : table) r.add();
}

std::vector<std::string> LeadingWords(const CLI::App& app, int argc, char** argv, size_t max) {
  std::vector<std::string> words;
  for (int i = 1; i < argc && words.size() < max; ++i) {
    std::string_view a = argv[i];
    if (a == "--") break;
    if (a.empty() || a[0] != '-') {
      words.emplace_back(a);
      continue;
    }
    // A global option that takes a value, given as a separate word, owns the next word.
    if (a.find('=') == std::string_view::npos)
      if (const CLI::Option* o = app.get_option_no_throw(std::string(a)); o && o->get_expected_min() > 0) ++i;
  }
  return words;
}

Result<runtime::Options> RuntimeOptions(const GlobalOpts& g) {
  runtime::Options o;
  o.root = g.root;
  o.config = TRY(runtime::LoadConfig(runtime::DefaultConfigPath()));
  o.backend_flag = g.backend;
  o.runsc_flags = g.runsc_flags;
  o.debug = g.debug;
  o.make_backends = Backends();
  return o;
}

Result<runtime::Containers> OpenContainers(const GlobalOpts& g) { return runtime::Containers(TRY(RuntimeOptions(g))); }

int ExitWith(const Status& s) {
  if (s) return 0;
  // #35, the client contract (docs/CLIENT.md): SANDSHIM_ERRORS=json makes the one line a JSON
  // object with the errno's name, so a client maps errors to types without reading prose.
  if (const char* f = std::getenv("SANDSHIM_ERRORS"); f && std::string_view(f) == "json") {
    const char* name = s.error().err_no ? ::strerrorname_np(s.error().err_no) : nullptr;
    std::cerr << boost::json::serialize(boost::json::object{{"error", s.error().msg}, {"errno", name ? name : ""}})
              << "\n";
    return 1;
  }
  // One line, whatever a refused id or path carried (a newline, an escape sequence): N10.
  std::string line;
  for (unsigned char c : s.error().msg) {
    if (c >= 0x20 && c != 0x7f) line += static_cast<char>(c);
    else line += "\\x" + std::string(1, "0123456789abcdef"[c >> 4]) + "0123456789abcdef"[c & 15];
  }
  log::Error(line);
  return 1;
}

void PrintJson(const boost::json::value& v, bool pretty) {
  if (!pretty) {
    std::cout << boost::json::serialize(v) << "\n";
    return;
  }
  // Two-space indentation, as runc prints state.
  std::function<void(const boost::json::value&, int)> emit = [&](const boost::json::value& x, int depth) {
    std::string pad(static_cast<size_t>(depth) * 2, ' ');
    if (x.is_object() && !x.get_object().empty()) {
      std::cout << "{\n";
      bool first = true;
      for (const auto& kv : x.get_object()) {
        std::cout << (first ? "" : ",\n") << pad << "  " << boost::json::serialize(boost::json::string(kv.key())) << ": ";
        emit(kv.value(), depth + 1);
        first = false;
      }
      std::cout << "\n" << pad << "}";
    } else {
      std::cout << boost::json::serialize(x);
    }
  };
  emit(v, 0);
  std::cout << "\n";
}

int PrintGcReport(const std::vector<std::string>& removed, const std::vector<std::string>& errors, bool json,
                  std::string_view verb) {
  if (json) {
    boost::json::array r, e;
    for (const auto& s : removed) r.emplace_back(s);
    for (const auto& s : errors) e.emplace_back(s);
    PrintJson(boost::json::object{{"removed", r}, {"errors", e}});
  } else {
    for (const auto& s : removed) std::cout << "removed " << s << "\n";
    for (const auto& s : errors) std::cerr << "sandshim: " << verb << ": " << s << "\n";
  }
  return errors.empty() ? 0 : 1;
}

}  // namespace sandshim::cli
