#include "shim/policy/builtin_names.h"

#include <algorithm>
#include <cctype>

#include "shim/policy/assignments.h"
#include "shim/policy/shell_options.h"

namespace sandshim::policy {
namespace {

bool In(std::string_view s, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}
bool IsOptionWord(const Word& w) { return !w.dynamic && w.text.size() > 1 && (w.text[0] == '-' || w.text[0] == '+'); }
Word NameWord(const Word& w) { return Word{.text = w.text + "=", .dynamic = true, .expanded = true, .raw = w.raw}; }
NamesSet Unknown(std::string why) { return NamesSet{{}, std::move(why)}; }

// bash's getopt for one builtin: flags, and options whose value is the next word or attached;
// `name_of` is the option whose value is a variable name (read -a, printf -v, wait -p).
NamesSet Getopt(const std::vector<Word>& words, std::string_view flags, std::string_view valued, char name_of, size_t& i) {
  NamesSet out;
  for (i = 1; i < words.size(); ++i) {
    const auto& w = words[i];
    if (w.dynamic) return Unknown("a word known only at run time where an option or a name may be: " + w.raw);
    if (w.text == "--") { ++i; break; }
    if (w.text.size() < 2 || w.text[0] != '-') break;
    for (size_t k = 1; k < w.text.size(); ++k) {
      char c = w.text[k];
      if (flags.find(c) != std::string_view::npos) continue;
      if (valued.find(c) == std::string_view::npos) return Unknown("an option we do not model: " + w.raw);
      Word value = k + 1 < w.text.size() ? Word{.text = w.text.substr(k + 1), .raw = w.raw}
                                         : i + 1 < words.size() ? words[++i] : Word{};
      if (c == name_of) {
        if (value.dynamic) return Unknown("a name known only at run time: " + value.raw);
        out.names.push_back(NameWord(value));
      }
      break;
    }
  }
  return out;
}

// test / [: bash's -v NAME (and -R) evaluates NAME's subscript. A word known only at run time
// may be that operator or that name unless the argument count fixes its place: one argument,
// or three with a binary operator in the middle. A word that may split has no fixed place.
NamesSet Test(const std::vector<Word>& words, bool bracket) {
  std::vector<Word> args(words.begin() + 1, words.end() - (bracket && words.size() > 1 ? 1 : 0));
  // -v a[x]: bash evaluates the subscript, and the name x in it recursively (polred r4 R2).
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (!args[i].dynamic && (args[i].text == "-v" || args[i].text == "-R") && !LiteralSubscript(args[i + 1].text))
      return Unknown("a subscript bash evaluates as arithmetic: " + args[i + 1].raw);
  bool dynamic = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].dynamic) continue;
    if (!args[i].quoted) return Unknown("a word that may split where test may read a name: " + args[i].raw);
    dynamic = true;
  }
  if (!dynamic || args.size() == 1) return {};
  if (args.size() == 3 && !args[1].dynamic &&
      In(args[1].text, {"=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef", "-a", "-o"}))
    return {};
  if (args.size() == 2 && !args[0].dynamic && args[0].text != "-v" && args[0].text != "-R" && args[0].text != "!") return {};
  return Unknown("a word known only at run time where test may read a name (bash -v)");
}

// export/readonly/local/unset: bash's declare family reads a value as a compound array
// assignment under -a/-A and expands what it holds (`readonly -a a='($(id))'` runs id though
// the parser sees one quoted word), -i evaluates it as arithmetic, -n makes a name refer to
// another. Only the options known to do none of that pass (polred r4 R1).
std::string NameOptionsUnknown(std::string_view name, const Word& w) {
  std::string_view known = name == "export" ? "fnp" : name == "unset" ? "fvn" : name == "readonly" ? "fp" : "p";
  if (w.dynamic) return "an option known only at run time: " + w.raw;
  for (size_t k = 1; k < w.text.size(); ++k)
    if (known.find(w.text[k]) == std::string_view::npos) return std::string(name) + " option we do not model: " + w.raw;
  return "";
}

// set: options from the one table of those known not to change how the shell reads what
// follows (shell_options.h); -k / -o keyword, -H / -o history and the rest ask.
NamesSet Set(const std::vector<Word>& words) {
  for (size_t i = 1; i < words.size(); ++i) {
    const auto& w = words[i];
    if (w.dynamic) return Unknown("set with an option known only at run time: " + w.raw);
    if (w.text == "--" || w.text == "-" || w.text.size() < 2 || (w.text[0] != '-' && w.text[0] != '+')) return {};
    bool on = w.text[0] == '-';
    for (size_t k = 1; k < w.text.size(); ++k) {
      char c = w.text[k];
      if (c == 'o') {
        if (i + 1 >= words.size()) return {};  // set -o: lists
        const auto& o = words[++i];
        if (o.dynamic || !IsKnownShellOptionName(o.text, on)) return Unknown("set -o we do not model: " + o.raw);
        continue;
      }
      if (!IsKnownShellLetter(c, on)) return Unknown("set option we do not model: " + w.raw);
    }
  }
  return {};
}

}  // namespace

NamesSet NamesSetBy(std::string_view name, const std::vector<Word>& words) {
  size_t i = 1;
  if (name == "read") {
    auto out = Getopt(words, "ers", "adinNptu", 'a', i);
    if (!out.uncertain.empty()) return out;
    for (; i < words.size(); ++i) {
      if (words[i].dynamic) return Unknown("a name known only at run time: " + words[i].raw);
      out.names.push_back(NameWord(words[i]));
    }
    return out;
  }
  if (name == "printf") return Getopt(words, "", "v", 'v', i);
  if (name == "wait") {
    // Any word known only at run time may be -p, and the next its name.
    for (size_t k = 1; k < words.size(); ++k)
      if (words[k].dynamic && (!words[k].quoted || k + 1 < words.size()))
        return Unknown("a word known only at run time where wait may read -p NAME: " + words[k].raw);
    return Getopt(words, "fn", "p", 'p', i);
  }
  if (name == "test" || name == "[") return Test(words, name == "[");
  if (name == "set") return Set(words);
  if (!In(name, {"export", "readonly", "local", "unset"})) return {};
  NamesSet out;
  bool options = true;
  for (i = 1; i < words.size(); ++i) {
    const auto& w = words[i];
    if (options && w.text == "--" && !w.dynamic) { options = false; continue; }
    if (options && IsOptionWord(w)) {
      if (auto why = NameOptionsUnknown(name, w); !why.empty()) return Unknown(why);
      continue;
    }
    // NAME=$value is known by its name; "$v" (v=PATH=/x) or $n=1 is not.
    auto eq = w.raw.find('=');
    bool literal_name = eq != std::string::npos && eq > 0 &&
                        std::all_of(w.raw.begin(), w.raw.begin() + static_cast<long>(eq), [](char c) {
                          return c == '_' || c == '+' || c == '[' || c == ']' || std::isalnum(static_cast<unsigned char>(c));
                        });
    if (w.dynamic && !literal_name) return Unknown("a name known only at run time: " + w.raw);
    out.names.push_back(w.text.find('=') == std::string::npos ? NameWord(w) : w);
  }
  return out;
}

}  // namespace sandshim::policy
