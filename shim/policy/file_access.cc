#include "shim/policy/file_access.h"

#include <algorithm>

namespace sandshim::policy {
namespace {

bool In(std::string_view s, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

bool IsReader(std::string_view n) {
  return In(n, {"cat", "head", "tail", "less", "more", "wc", "sort", "uniq", "diff", "cmp", "md5sum", "sha1sum", "sha256sum",
                "sha512sum", "base64", "xxd", "od", "hexdump", "strings", "file", "stat", "nl", "tac", "cut", "ls", "du",
                "grep", "egrep", "fgrep", "rg", "zcat", "bat", "jq", "readlink", "realpath"});
}
bool IsWriter(std::string_view n) {
  return In(n, {"touch", "tee", "rm", "rmdir", "mkdir", "truncate", "chmod", "chown", "chgrp", "ln", "shred", "unlink", "mv"});
}

// Arguments that are not options; option values given as --opt=/path count too.
std::vector<Word> Operands(const std::vector<Word>& argv, size_t skip_first_operands) {
  std::vector<Word> out;
  bool options = true;
  for (size_t i = 1; i < argv.size(); ++i) {
    const auto& w = argv[i];
    if (options && !w.dynamic && w.text == "--") { options = false; continue; }
    if (options && !w.dynamic && w.text.size() > 1 && w.text[0] == '-') {
      auto eq = w.text.find('=');
      if (eq != std::string::npos && eq + 1 < w.text.size() && w.text[eq + 1] == '/')
        out.push_back(Word{.text = w.text.substr(eq + 1), .raw = w.raw});
      continue;
    }
    if (skip_first_operands > 0) { --skip_first_operands; continue; }
    out.push_back(w);
  }
  return out;
}

bool HasPatternOption(const std::vector<Word>& argv) {
  return std::any_of(argv.begin() + 1, argv.end(), [](const Word& w) {
    return w.text == "-e" || w.text == "-f" || w.text.rfind("--regexp", 0) == 0 || w.text.rfind("--file", 0) == 0;
  });
}

}  // namespace

std::vector<PathUse> PathsUsed(std::string_view name, const std::vector<Word>& argv) {
  std::vector<PathUse> out;
  auto add = [&](const std::vector<Word>& ws, std::optional<Access> a) {
    for (const auto& w : ws) out.push_back({w, a});
  };
  if (In(name, {"grep", "egrep", "fgrep", "rg"})) {
    // The first operand is the pattern unless -e/-f gave it (then an -e value may be taken
    // for a path: stricter, never looser).
    add(Operands(argv, HasPatternOption(argv) ? 0 : 1), Access::kRead);
  } else if (In(name, {"chmod", "chown", "chgrp"})) {
    add(Operands(argv, 1), Access::kWrite);
  } else if (In(name, {"cp", "install", "rsync", "scp"})) {
    auto ops = Operands(argv, 0);
    if (!ops.empty()) {
      out.push_back({ops.back(), Access::kWrite});
      ops.pop_back();
    }
    add(ops, Access::kRead);
  } else if (IsReader(name)) {
    add(Operands(argv, 0), Access::kRead);
  } else if (IsWriter(name)) {
    add(Operands(argv, 0), Access::kWrite);
  } else {
    add(Operands(argv, 0), std::nullopt);
  }
  return out;
}

}  // namespace sandshim::policy
