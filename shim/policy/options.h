// One model of the option grammars of the wrappers the policy unwraps (env, time, xargs,
// nice, timeout...) and the file tools whose operands it checks (grep, sort, cp, uniq, tee,
// head...), as getopt_long reads them: which options take a value (required: attached or
// the next word; optional: attached only), clusters (-iS'x' is -i then -S with "x"), long
// options by any unambiguous prefix (--sp is --split-string), `--`, and whether options
// stop at the first operand. A word the grammar does not know is never guessed at: the
// result says so, and the policy asks (#33: each guess that differed from the real tool was
// an allow).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shim/policy/shell_parse.h"

namespace sandshim::policy {

struct OptionGrammar {
  std::string_view flags;      // short options without a value: "ivz"
  std::string_view valued;     // short options with a required value: "uCS"
  std::string_view optional;   // short options whose value is attached only: "il" (-l5)
  std::string_view longs;      // "name" flag, "name=" required value, "name?" optional: comma-separated
  bool stop_at_operand = true; // options end at the first operand (wrappers; POSIX order)
  bool numeric = false;        // -NUM is an option (nice -5, head -20)
};

struct ParsedOption {
  std::string name;           // "-o" or the full long name "--output"
  std::optional<Word> value;  // the value, with its word's dynamic flag
};

struct ParsedArgs {
  std::vector<ParsedOption> options;
  std::vector<Word> operands;
  size_t first_operand = 0;  // index in argv of the first operand (stop_at_operand grammars)
  std::string uncertain;     // non-empty: a word the grammar cannot read (unknown, ambiguous, dynamic)
  bool Has(std::string_view name) const;
  std::vector<Word> Values(std::string_view name) const;
};

// Reads argv[from...] by the grammar.
ParsedArgs ParseOptions(const OptionGrammar& g, const std::vector<Word>& argv, size_t from = 1);

// The grammar of a command the policy models, or nullptr.
const OptionGrammar* GrammarOf(std::string_view command);

}  // namespace sandshim::policy
