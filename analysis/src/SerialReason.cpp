#include "SerialReason.h"

#include <algorithm>

namespace rotor::analysis::detail {
namespace {

std::string subscript_words(const LoopModel& model, const Subscript& s) {
  if (!s.text.empty()) {
    return s.text;
  }
  auto offset = [](const Offset& o) {
    std::string out = o.symbol;
    if (o.value != 0 || o.symbol.empty()) {
      out += (o.symbol.empty() ? "" : (o.value < 0 ? "-" : "+")) +
             std::to_string(o.symbol.empty() ? o.value : (o.value < 0 ? -o.value : o.value));
    }
    return out;
  };
  switch (s.kind) {
  case Subscript::Kind::constant:
    return offset(s.offset);
  case Subscript::Kind::key: {
    std::string name = s.field >= 0 && static_cast<std::size_t>(s.field) < model.fields.size()
                           ? model.fields[static_cast<std::size_t>(s.field)]
                           : "?";
    if (s.offset.symbol.empty() && s.offset.value == 0) {
      return name;
    }
    std::string o = offset(s.offset);
    return name + (o[0] == '-' ? "" : "+") + o;
  }
  case Subscript::Kind::whole:
    return ":";
  case Subscript::Kind::unknown:
    break;
  }
  return "?";
}

} // namespace

std::string loc_string(const SourceLoc& loc) {
  if (loc.line <= 0) {
    return loc.file;
  }
  std::string out = loc.file.empty() ? "line " + std::to_string(loc.line)
                                     : loc.file + ":" + std::to_string(loc.line);
  if (loc.col > 0 && !loc.file.empty()) {
    out += ":" + std::to_string(loc.col);
  }
  return out;
}

std::string access_words(const LoopModel& model, int access) {
  const Access& a = model.accesses[static_cast<std::size_t>(access)];
  std::string text = a.text;
  if (text.empty()) {
    text = a.array;
    for (const Subscript& s : a.subscripts) {
      text += "[" + subscript_words(model, s) + "]";
    }
  }
  std::string where = loc_string(a.loc);
  return std::string(a.write ? "write " : "read ") + text + (where.empty() ? "" : " at " + where);
}

std::string escape_words(const Escape& escape) {
  std::string kind;
  switch (escape.kind) {
  case Escape::Kind::outside_write:
    kind = "a write to an outside variable that is not a reduction";
    break;
  case Escape::Kind::pointer_taken:
    kind = "a pointer or reference whose target Rotor cannot follow";
    break;
  case Escape::Kind::unknown_call:
    kind = "a call with unknown effects";
    break;
  case Escape::Kind::control_flow:
    kind = "control flow out of the loop body";
    break;
  case Escape::Kind::compiler_dependent:
    kind = "code that depends on the compiler";
    break;
  case Escape::Kind::plain_container:
    kind = "a plain container Rotor cannot use as a parameter array";
    break;
  }
  std::string where = loc_string(escape.loc);
  // A bare name is quoted; a sentence (the frontend's, with its own quotes) is parenthesised.
  const bool sentence = escape.what.find_first_of(" '") != std::string::npos;
  const std::string what = escape.what.empty() ? ""
                           : sentence          ? " (" + escape.what + ")"
                                               : " '" + escape.what + "'";
  return kind + what + (where.empty() ? "" : " at " + where);
}

const SearchDependence& blocking_dependence(const std::vector<SearchDependence>& deps) {
  for (const SearchDependence& d : deps) {
    if (std::none_of(d.exact.begin(), d.exact.end(),
                     [](const Interval& i) { return i.is_zero(); })) {
      return d;
    }
  }
  return deps.front();
}

std::string dependence_reason(const LoopModel& model, const SearchDependence& dep) {
  const RawDependence& raw = *dep.raw;
  Dependence shown;
  shown.entries = normalise(raw.distance, model.ordered);
  std::string out = access_words(model, raw.source);
  if (raw.sink != raw.source) {
    out += " and " + access_words(model, raw.sink);
  } else {
    out += " in two iterations";
  }
  out += " may touch the same element of '" +
         model.accesses[static_cast<std::size_t>(raw.source)].array + "' (dependence " +
         shown.to_string() + ")";
  for (int idx : {raw.source, raw.sink}) {
    const Access& a = model.accesses[static_cast<std::size_t>(idx)];
    for (const Subscript& s : a.subscripts) {
      if (s.kind == Subscript::Kind::unknown) {
        const ArrayDecl* decl = model.array(a.array);
        if (decl != nullptr && decl->row_vector) {
          return out + "; subscript '" + subscript_words(model, s) +
                 "' of the plain container is not a row `key * stride + j` with one loop-invariant "
                 "stride and j provably in [0, stride)";
        }
        return out + "; subscript '" + subscript_words(model, s) +
               "' is not a key field plus a loop-invariant offset";
      }
    }
  }
  return out;
}

} // namespace rotor::analysis::detail
