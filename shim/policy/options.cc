#include "shim/policy/options.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace sandshim::policy {
namespace {

enum class Arg { kNone, kRequired, kOptional };

// The long options of a grammar: "name=" required, "name?" optional, "name" none.
std::vector<std::pair<std::string_view, Arg>> Longs(std::string_view spec) {
  std::vector<std::pair<std::string_view, Arg>> out;
  while (!spec.empty()) {
    auto comma = spec.find(',');
    auto item = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    if (item.empty()) continue;
    Arg a = item.back() == '=' ? Arg::kRequired : item.back() == '?' ? Arg::kOptional : Arg::kNone;
    if (a != Arg::kNone) item.remove_suffix(1);
    out.emplace_back(item, a);
  }
  return out;
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

Word Part(const Word& w, size_t from) {
  return Word{.text = w.text.substr(from), .dynamic = w.dynamic, .quoted = w.quoted, .raw = w.raw};
}

class Reader {
 public:
  Reader(const OptionGrammar& g, const std::vector<Word>& argv) : g_(g), argv_(argv), longs_(Longs(g.longs)) {}

  // Reads the option word at i; returns the index of the next word.
  size_t Option(size_t i) {
    const Word& w = argv_[i];
    if (w.text.rfind("--", 0) == 0) return Long(i);
    if (g_.numeric && AllDigits(std::string_view(w.text).substr(1))) {
      out.options.push_back({"-#", Part(w, 1)});
      return i + 1;
    }
    for (size_t k = 1; k < w.text.size(); ++k) {
      char c = w.text[k];
      std::string name = std::string("-") + c;
      if (g_.flags.find(c) != std::string_view::npos) {
        out.options.push_back({name, std::nullopt});
        continue;
      }
      bool required = g_.valued.find(c) != std::string_view::npos;
      if (!required && g_.optional.find(c) == std::string_view::npos) return Unknown("unknown option -" + std::string(1, c) + " in " + w.raw);
      if (k + 1 < w.text.size()) {
        out.options.push_back({name, Part(w, k + 1)});
        return i + 1;
      }
      if (!required) {
        out.options.push_back({name, std::nullopt});
        return i + 1;
      }
      if (i + 1 >= argv_.size()) return Unknown("option " + name + " without its value");
      out.options.push_back({name, argv_[i + 1]});
      return i + 2;
    }
    return i + 1;
  }

  ParsedArgs out;

 private:
  size_t Long(size_t i) {
    const Word& w = argv_[i];
    auto eq = w.text.find('=');
    std::string_view name = std::string_view(w.text).substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const std::pair<std::string_view, Arg>* found = nullptr;
    int matches = 0;
    for (const auto& l : longs_) {
      if (l.first == name) { found = &l; matches = 1; break; }
      if (l.first.rfind(name, 0) == 0) { found = &l; ++matches; }
    }
    if (matches != 1) return Unknown((matches ? "ambiguous option " : "unknown option ") + w.raw);
    std::string full = "--" + std::string(found->first);
    if (eq != std::string::npos) {
      if (found->second == Arg::kNone) return Unknown("option " + full + " takes no value");
      out.options.push_back({full, Part(w, eq + 1)});
      return i + 1;
    }
    if (found->second != Arg::kRequired) {
      out.options.push_back({full, std::nullopt});
      return i + 1;
    }
    if (i + 1 >= argv_.size()) return Unknown("option " + full + " without its value");
    out.options.push_back({full, argv_[i + 1]});
    return i + 2;
  }

  size_t Unknown(std::string why) {
    if (out.uncertain.empty()) out.uncertain = std::move(why);
    return argv_.size();
  }

  const OptionGrammar& g_;
  const std::vector<Word>& argv_;
  std::vector<std::pair<std::string_view, Arg>> longs_;
};

}  // namespace

bool ParsedArgs::Has(std::string_view name) const {
  return std::any_of(options.begin(), options.end(), [&](const ParsedOption& o) { return o.name == name; });
}

std::vector<Word> ParsedArgs::Values(std::string_view name) const {
  std::vector<Word> out;
  for (const auto& o : options)
    if (o.name == name && o.value) out.push_back(*o.value);
  return out;
}

ParsedArgs ParseOptions(const OptionGrammar& g, const std::vector<Word>& argv, size_t from) {
  Reader r(g, argv);
  r.out.first_operand = argv.size();
  bool options = true;
  for (size_t i = from; i < argv.size();) {
    const Word& w = argv[i];
    if (options && !w.dynamic && w.text == "--") {
      options = false;
      ++i;
      continue;
    }
    bool looks_option = w.text.size() > 1 && w.text[0] == '-';
    // A glob expands to names that start as it does: one that starts with a literal other
    // than `-` is no option.
    bool glob_operand = w.dynamic && !w.expanded && !w.text.empty() && w.text[0] != '-' && !std::strchr("*?[", w.text[0]);
    if (options && w.dynamic && !glob_operand) {
      // `$X` may be an option (o=-r; grep $o ...), or make one word into several: what
      // follows is unknown, in every grammar, until `--`.
      r.out.uncertain = "a word known only at run time where an option may be: " + w.raw;
      return r.out;
    }
    if (options && looks_option && w.dynamic) {
      r.out.uncertain = "an option known only at run time: " + w.raw;
      return r.out;
    }
    if (options && looks_option) {
      i = r.Option(i);
      if (!r.out.uncertain.empty()) return r.out;
      continue;
    }
    if (r.out.operands.empty()) r.out.first_operand = i;
    if (g.stop_at_operand) {
      r.out.operands.assign(argv.begin() + static_cast<long>(i), argv.end());
      return r.out;
    }
    r.out.operands.push_back(w);
    ++i;
  }
  return r.out;
}

const OptionGrammar* GrammarOf(std::string_view command) {
  // GNU coreutils 9, grep 3, findutils 4.9, util-linux 2.38 (Debian 12), as their --help lists.
  static const std::map<std::string_view, OptionGrammar> kGrammars = {
      {"env", {"i0v", "uCS", "", "ignore-environment,null,unset=,chdir=,split-string=,block-signal?,default-signal?,"
                                 "ignore-signal?,list-signal-handling,debug,help,version"}},
      {"nice", {"", "n", "", "adjustment=,help,version", true, true}},
      {"timeout", {"v", "sk", "", "preserve-status,foreground,kill-after=,signal=,verbose,help,version"}},
      {"stdbuf", {"", "ioe", "", "input=,output=,error=,help,version"}},
      {"setsid", {"cfw", "", "", "ctty,fork,wait,help,version"}},
      {"nohup", {"", "", "", "help,version"}},
      {"time", {"apqvV", "fo", "", "format=,output=,append,portability,quiet,verbose,help,version"}},
      {"xargs", {"0oprtx", "adEILnPs", "eil", "null,arg-file=,delimiter=,eof?,replace?,max-lines=,max-args=,open-tty,"
                                            "max-procs=,interactive,process-slot-var=,no-run-if-empty,max-chars=,"
                                            "show-limits,verbose,exit,help,version"}},
      {"ionice", {"t", "cnpPu", "", "class=,classdata=,pid=,pgid=,uid=,ignore,help,version"}},
      {"exec", {"cl", "a", "", ""}},
      {"command", {"pvV", "", "", ""}},
      {"grep", {"EFGPiyvwxcLloqsbHhnTZzrRaIUV", "efmABCdD", "", "extended-regexp,fixed-strings,basic-regexp,"
                "perl-regexp,regexp=,file=,ignore-case,no-ignore-case,word-regexp,line-regexp,null-data,no-messages,"
                "invert-match,version,help,max-count=,byte-offset,line-number,no-line-number?,line-buffered,with-filename,"
                "no-filename,label=,only-matching,quiet,silent,binary-files=,text,directories=,devices=,recursive,"
                "dereference-recursive,include=,exclude=,exclude-from=,exclude-dir=,files-without-match,"
                "files-with-matches,count,initial-tab,null,before-context=,after-context=,context=,group-separator=,"
                "no-group-separator,color?,colour?,binary", false, true}},
      {"sort", {"bdfgiMhnRrVcCmsuz", "kotST", "", "ignore-leading-blanks,dictionary-order,ignore-case,"
                "general-numeric-sort,ignore-nonprinting,month-sort,human-numeric-sort,numeric-sort,random-sort,"
                "random-source=,reverse,sort=,version-sort,batch-size=,check?,compress-program=,debug,files0-from=,"
                "key=,merge,output=,stable,buffer-size=,field-separator=,temporary-directory=,parallel=,unique,"
                "zero-terminated,help,version", false}},
      {"uniq", {"cdiuz", "fsw", "", "count,repeated,all-repeated?,skip-fields=,group?,ignore-case,skip-chars=,unique,"
                "zero-terminated,check-chars=,help,version", false}},
      {"cp", {"abdfiHlLnPpRrsuvxTZ", "St", "", "archive,attributes-only,backup?,copy-contents,debug,force,interactive,"
              "link,dereference,no-clobber,no-dereference,preserve?,no-preserve=,parents,recursive,reflink?,"
              "remove-destination,sparse=,strip-trailing-slashes,symbolic-link,suffix=,target-directory=,"
              "no-target-directory,update?,verbose,one-file-system,context?,help,version", false}},
      {"mv", {"bfinuvTZ", "St", "", "backup?,debug,exchange,force,interactive,no-clobber,no-copy,"
              "strip-trailing-slashes,suffix=,target-directory=,no-target-directory,update?,verbose,context,help,version",
              false}},
      {"tee", {"aip", "", "", "append,ignore-interrupts,output-error?,help,version", false}},
      {"head", {"qvz", "cn", "", "bytes=,lines=,quiet,silent,verbose,zero-terminated,help,version", false, true}},
      {"tail", {"fFqvz", "cns", "", "bytes=,follow?,lines=,max-unchanged-stats=,pid=,quiet,retry,silent,"
                "sleep-interval=,verbose,zero-terminated,help,version", false, true}},
      {"cat", {"AbeEnstTuv", "", "", "show-all,number-nonblank,show-ends,number,squeeze-blank,show-tabs,"
               "show-nonprinting,help,version", false}},
      {"wc", {"cmlLw", "", "", "bytes,chars,lines,max-line-length,words,total=,help,version", false}},
      {"cut", {"nsz", "bcdf", "", "bytes=,characters=,delimiter=,fields=,complement,only-delimited,"
               "output-delimiter=,zero-terminated,help,version", false}},
      {"touch", {"achmf", "drt", "", "date=,no-create,no-dereference,reference=,time=,help,version", false}},
      {"mkdir", {"pvZ", "m", "", "mode=,parents,verbose,context?,help,version", false}},
      {"rm", {"fiIrRdv", "", "", "force,interactive?,one-file-system,no-preserve-root,preserve-root?,recursive,dir,"
              "verbose,help,version", false}},
      {"ln", {"bdFfiLnPrsTv", "St", "", "backup?,directory,force,interactive,logical,no-dereference,physical,"
              "relative,symbolic,suffix=,target-directory=,no-target-directory,verbose,help,version", false}},
      {"truncate", {"co", "rs", "", "no-create,io-blocks,reference=,size=,help,version", false}},
  };
  auto it = kGrammars.find(command);
  return it == kGrammars.end() ? nullptr : &it->second;
}

}  // namespace sandshim::policy
