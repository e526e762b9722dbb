// The write-ahead journal of one container or session: every resource that will need undoing
// (a runsc sandbox, a process, a mount, a cgroup, a directory) is appended durably *before* it
// is created. delete and gc replay it backwards; each undo step is idempotent, so a crash at
// any instant leaves nothing that a replay cannot remove.
//
// Each layer has its own step type, a std::variant of described structs (journal_steps.h for
// containers, shim/session/session_steps.h for sessions), and one Undo visitor over it. On
// disk a journal is a JSON array of {"kind": K, "data": {members}}, K being the step's kKind:
// the format journals had when steps were (kind string, JSON object) pairs, so a journal an
// older sandshim wrote still loads and is undone. An unknown kind or a mistyped member is an
// error that names it, never a step skipped.
#pragma once

#include <boost/json.hpp>
#include <filesystem>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bundle/described.h"
#include "shim/core/result.h"

namespace sandshim::runtime {

// One journal entry as stored: the step's kind and its members.
struct RawStep {
  std::string kind;
  boost::json::object data;
};

// The entries of the journal at file; a missing or empty file is an empty journal (empty: a
// non-durable write cut by an OS crash). An entry that is not {"kind": string, "data": object}
// is an error naming its index.
Result<std::vector<RawStep>> LoadRawSteps(const std::filesystem::path& file);
// For a teardown that must go on past a journal it cannot read (delete --force, gc): each
// entry, or its error; a file that is not a JSON array is one error.
std::vector<Result<RawStep>> SalvageRawSteps(const std::filesystem::path& file);
// Writes steps to file (tmp + [fsync] + rename).
Status WriteRawSteps(const std::filesystem::path& file, const std::vector<RawStep>& steps, bool durable);

// The kind of any step of a variant (each alternative has `static constexpr std::string_view kKind`).
template <class Step>
std::string_view KindOf(const Step& s) {
  return std::visit([](const auto& x) -> std::string_view { return std::decay_t<decltype(x)>::kKind; }, s);
}

// The step of kind raw.kind, its members read strictly (an absent member keeps its default:
// entries written before the member existed).
template <class Step>
Result<Step> DecodeStep(const RawStep& raw, const std::string& doc, const std::string& path) {
  std::optional<Result<Step>> out;
  auto try_one = [&]<class T>(std::type_identity<T>) {
    if (out || raw.kind != T::kKind) return;
    auto v = bundle::ReadDescribed<T>(bundle::Fields(raw.data, doc, path + ".data"));
    out = v ? Result<Step>(Step(std::move(*v))) : Result<Step>(v.error());
  };
  [&]<class... Ts>(std::type_identity<std::variant<Ts...>>) {
    (try_one(std::type_identity<Ts>{}), ...);
  }(std::type_identity<Step>{});
  if (!out) return bundle::FieldError(doc, path + ".kind", "unknown journal step \"" + raw.kind + "\"");
  return std::move(*out);
}

template <class Step>
RawStep EncodeStep(const Step& s) {
  return std::visit([](const auto& x) { return RawStep{std::string(std::decay_t<decltype(x)>::kKind), bundle::WriteDescribed(x)}; },
                    s);
}

template <class Step>
class TypedJournal {
 public:
  // durable=false: entries are renamed into place (any later process sees them, so a killed
  // sandshim is still undone) but not fsync'd: for containers whose every resource dies
  // with the kernel (cgroups, processes), an OS crash leaves nothing to undo.
  explicit TypedJournal(std::filesystem::path file, bool durable = true) : file_(std::move(file)), durable_(durable) {}

  // durable: how later appends are written (see the constructor).
  static Result<TypedJournal> Load(const std::filesystem::path& file, bool durable = true) {
    TypedJournal j(file, durable);
    auto raw = TRY(LoadRawSteps(file));
    std::string doc = "journal " + file.string();
    for (size_t i = 0; i < raw.size(); ++i)
      j.entries_.push_back(TRY(DecodeStep<Step>(raw[i], doc, "[" + std::to_string(i) + "]")));
    return j;
  }

  // Records s durably before returning; on an error the caller must not create the resource.
  Status Append(Step s) {
    std::vector<RawStep> raw;
    for (const auto& x : entries_) raw.push_back(EncodeStep(x));
    raw.push_back(EncodeStep(s));
    TRY(WriteRawSteps(file_, raw, durable_));
    entries_.push_back(std::move(s));
    return Ok();
  }

  const std::vector<Step>& entries() const { return entries_; }
  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
  bool durable_ = true;
  std::vector<Step> entries_;
};

// What a forced teardown can read of a journal: the entries that decode, in order, and one
// message per entry (or for the whole file) that does not. Never used for a normal load: there
// an unreadable entry stops the operation and keeps the record (TypedJournal::Load).
template <class Step>
struct Salvaged {
  std::vector<Step> entries;
  std::vector<std::string> unreadable;
};

template <class Step>
Salvaged<Step> SalvageJournal(const std::filesystem::path& file) {
  Salvaged<Step> out;
  std::string doc = "journal " + file.string();
  auto raw = SalvageRawSteps(file);
  for (size_t i = 0; i < raw.size(); ++i) {
    auto step = raw[i] ? DecodeStep<Step>(*raw[i], doc, "[" + std::to_string(i) + "]") : Result<Step>(raw[i].error());
    if (step) out.entries.push_back(std::move(*step));
    else out.unreadable.push_back(step.error().msg);
  }
  return out;
}

// Undoes every entry, newest first. Every step runs even when an earlier one failed; the
// failures are joined into one error ("undo runsc-container: …; undo dir: …").
template <class Step, class UndoFn>
Status Replay(const std::vector<Step>& entries, UndoFn&& undo) {
  std::string errors;
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    Status s = undo(*it);
    if (s) continue;
    if (!errors.empty()) errors += "; ";
    errors += "undo " + std::string(KindOf(*it)) + ": " + s.error().msg;
  }
  if (errors.empty()) return Ok();
  return MakeError(errors, EIO);
}

// A visitor from lambdas, one per step type: std::visit(Overloaded{...}, step).
template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

}  // namespace sandshim::runtime
