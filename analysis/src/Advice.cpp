#include "rotor/analysis/Advice.h"

#include "rotor/analysis/Format.h"
#include "rotor/analysis/PlanText.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace rotor::analysis {
namespace {

void add_unique(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) {
    v.push_back(s);
  }
}

std::string field_name(const LoopModel& model, int field) {
  return field >= 0 && static_cast<std::size_t>(field) < model.fields.size()
             ? model.fields[static_cast<std::size_t>(field)]
             : "?";
}

/// How one subscript indexes its dimension, in words; empty for a whole dimension.
std::string subscript_phrase(const LoopModel& model, const Subscript& s) {
  switch (s.kind) {
  case Subscript::Kind::key: {
    std::string name = field_name(model, s.field);
    if (s.offset.symbol.empty() && s.offset.value == 0) {
      return name;
    }
    std::string o = offset_text(s.offset, OffsetStyle::words);
    return name + (o[0] == '-' ? " - " + o.substr(1) : " + " + o);
  }
  case Subscript::Kind::constant:
    return "the constant " + (s.text.empty() ? offset_text(s.offset, OffsetStyle::words) : s.text);
  case Subscript::Kind::unknown:
    return "'" + (s.text.empty() ? std::string("?") : s.text) + "' (not a key)";
  case Subscript::Kind::whole:
    break;
  }
  return {};
}

std::string dim_noun(int rank, std::size_t d) {
  if (rank == 1) {
    return "elements";
  }
  if (rank == 2) {
    return d == 0 ? "rows" : "columns";
  }
  return "dimension " + std::to_string(d);
}

/// "its rows are indexed by item" (every dimension some access indexes by something other than a
/// whole dimension).
std::string index_words(const LoopModel& model, const std::string& array) {
  const ArrayDecl* decl = model.array(array);
  const int rank = decl ? decl->rank : 1;
  std::vector<std::string> parts;
  for (std::size_t d = 0; d < static_cast<std::size_t>(std::max(rank, 1)); ++d) {
    std::vector<std::string> how;
    for (const Access& a : model.accesses) {
      if (a.array == array && d < a.subscripts.size()) {
        const std::string p = subscript_phrase(model, a.subscripts[d]);
        if (!p.empty()) {
          add_unique(how, p);
        }
      }
    }
    if (!how.empty()) {
      parts.push_back(parts.empty()
                          ? "its " + dim_noun(rank, d) + " are indexed by " + join(how, " and by ")
                          : dim_noun(rank, d) + " by " + join(how, " and by "));
    }
  }
  if (parts.empty()) {
    return "every access reaches the whole of it";
  }
  return join(parts, ", its ");
}

/// "two records with the same item conflict" from the array's dependence vectors.
std::string conflict_words(const LoopModel& model, const Plan& plan, const std::string& array) {
  std::vector<std::string> phrases;
  bool any = false;
  for (const Dependence& d : plan.dependences) {
    if (d.array != array) {
      continue;
    }
    any = true;
    std::vector<std::string> conds;
    for (std::size_t f = 0; f < d.entries.size() && f < model.fields.size(); ++f) {
      const DepEntry& e = d.entries[f];
      if (e.kind != DepEntry::Kind::distance) {
        continue;
      }
      conds.push_back(e.distance == 0 ? "the same " + model.fields[f]
                                      : model.fields[f] + " values " +
                                            std::to_string(std::llabs(e.distance)) + " apart");
    }
    add_unique(phrases, conds.empty() ? "any two records may touch the same element"
                                      : "two records with " + join(conds, " and ") + " conflict");
  }
  if (!any) {
    return "no two records touch the same element";
  }
  if (std::find(phrases.begin(), phrases.end(), "any two records may touch the same element") !=
      phrases.end()) {
    return "any two records may touch the same element";
  }
  return join(phrases, "; ");
}

/// The first name quoted in `what` ('M', 'this->m[i]'): a quote that does not follow a letter or
/// digit, up to the next quote that no letter or digit follows, so an apostrophe ("the loop's
/// bound 'M'") is not taken for one.
std::string quoted_name(const std::string& what) {
  const auto word_char = [&](std::size_t i) {
    return i < what.size() && std::isalnum(static_cast<unsigned char>(what[i])) != 0;
  };
  for (std::size_t a = what.find('\''); a != std::string::npos; a = what.find('\'', a + 1)) {
    if (a > 0 && word_char(a - 1)) {
      continue; // an apostrophe
    }
    for (std::size_t b = what.find('\'', a + 1); b != std::string::npos;
         b = what.find('\'', b + 1)) {
      if (!word_char(b + 1)) {
        return what.substr(a + 1, b - a - 1);
      }
    }
    return std::string();
  }
  return std::string();
}

std::string escape_kind_words(const Escape& e) {
  switch (e.kind) {
  case Escape::Kind::outside_write:
    return "a write to an outside variable that is not a reduction";
  case Escape::Kind::pointer_taken:
    return "a pointer or reference whose target Rotor cannot follow";
  case Escape::Kind::unknown_call:
    return "a call whose effects Rotor cannot see";
  case Escape::Kind::control_flow:
    return "control flow out of the loop body";
  case Escape::Kind::compiler_dependent:
    return "code that depends on the compiler";
  case Escape::Kind::plain_container:
    return "a plain container Rotor cannot use as a parameter array";
  }
  return "an escape";
}

std::string escape_fix(const Escape& e) {
  if (!e.fix.empty()) {
    return e.fix;
  }
  const std::string name = quoted_name(e.what);
  switch (e.kind) {
  case Escape::Kind::outside_write:
    return "declare " + (name.empty() ? std::string("the variable") : "'" + name + "'") +
           " inside the loop body if each record needs its own; a sum over the records is a "
           "reduction named in the loop (+= or -=, or a rotor::Accumulator<T, Op>), and state "
           "shared between records must be a rotor::DistArray indexed by the records' keys";
  case Escape::Kind::pointer_taken:
    return "index the array with A(i, j), A[i] or A.row(i) instead of taking a pointer into it, "
           "so that Rotor sees which elements each record touches";
  case Escape::Kind::unknown_call:
    if (e.what.find("recursive") != std::string::npos) {
      return "replace the recursion in " +
             (name.empty() ? std::string("the helper") : "'" + name + "'") +
             " by a loop, so that Rotor can follow its accesses";
    }
    return "define the called function in this file, in a header it includes, or in exactly "
           "one other source of the program beside this file or on the rotor-cc command line "
           "(Rotor analyses helpers whose body it sees, with their arguments bound), or move the "
           "call out of the loop";
  case Escape::Kind::control_flow:
    return "remove the early exit: every record must be visited, in no fixed order; skip the "
           "records you do not want with 'continue' or an if (both are allowed)";
  case Escape::Kind::compiler_dependent:
    return "move the compiler-specific code out of the loop and the helpers it calls (rotor-cc "
           "analyses the file as Clang sees it, the host compiler may compile the other branch)";
  case Escape::Kind::plain_container:
    return "index the container by the records' keys only (docs/design/containers.md), or make it "
           "a rotor::DistArray";
  }
  return "remove the escape";
}

std::vector<std::string> identifiers(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (std::isalpha(c) || c == '_') {
      std::size_t j = i;
      while (j < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) {
        ++j;
      }
      out.push_back(text.substr(i, j - i));
      i = j;
    } else if (std::isdigit(c)) {
      while (i < text.size() && std::isalnum(static_cast<unsigned char>(text[i]))) {
        ++i;
      }
    } else {
      ++i;
    }
  }
  return out;
}

/// The record variable in front of a key field in `text` ("r" in "r.user % 8"), or "".
std::string record_variable(const LoopModel& model, const std::string& text) {
  for (const std::string& f : model.fields) {
    for (std::size_t at = text.find("." + f); at != std::string::npos;
         at = text.find("." + f, at + 1)) {
      std::size_t b = at;
      while (b > 0 &&
             (std::isalnum(static_cast<unsigned char>(text[b - 1])) || text[b - 1] == '_')) {
        --b;
      }
      if (b < at) {
        return text.substr(b, at - b);
      }
    }
  }
  return {};
}

std::string access_text(const LoopModel& model, const Access& a) {
  if (!a.text.empty()) {
    return a.text;
  }
  std::string out = a.array;
  for (const Subscript& s : a.subscripts) {
    out += "[" + (s.text.empty() ? subscript_phrase(model, s) : s.text) + "]";
  }
  return out;
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at != std::string::npos && !from.empty()) {
    text.replace(at, from.size(), to);
  }
  return text;
}

/// A rewrite for an unknown subscript computed from a key or looked up through an array; empty
/// when it is a value the loop computes or reads from data (no rewrite can make it a key).
std::string unknown_fix(const LoopModel& model, const Access& a, const Subscript& s) {
  const std::vector<std::string> ids = identifiers(s.text);
  std::vector<std::string> keys;
  for (const std::string& id : ids) {
    if (std::find(model.fields.begin(), model.fields.end(), id) != model.fields.end()) {
      add_unique(keys, id);
    }
  }
  const std::string var = record_variable(model, s.text);
  const std::string prefix = var.empty() ? "r." : var + ".";
  const bool lookup = s.text.find_first_of("[(") != std::string::npos;
  if (const analysis::ArrayDecl* decl = model.array(a.array); decl != nullptr && decl->row_vector) {
    return "index the plain container '" + a.array + "' as rows, " + a.array +
           "[key * stride + j], with the same loop-invariant stride in "
           "every subscript and j a constant below it or the counter of `for (int j = 0; j < "
           "stride; ++j)` that the loop does not change otherwise (subscript '" +
           s.text + "')";
  }
  if (keys.empty()) {
    return {};
  }
  std::string name;
  std::string what;
  if (lookup) {
    std::vector<std::string> parts;
    for (const std::string& id : ids) {
      if (id != var && id != "row" && id != "at") {
        parts.push_back(id);
      }
    }
    name = join(parts, "_");
    what = "is looked up at run time, so Rotor cannot tell which records touch the same element "
           "of " +
           a.array + ". If the lookup does not change during the loop, store it";
  } else {
    std::string op = "key";
    for (const auto& [sym, word] : std::vector<std::pair<std::string, std::string>>{{"%", "mod"},
                                                                                    {"/", "div"},
                                                                                    {"*", "mul"},
                                                                                    {">>", "shr"},
                                                                                    {"<<", "shl"},
                                                                                    {"&", "and"},
                                                                                    {"^", "xor"},
                                                                                    {"|", "or"}}) {
      if (s.text.find(sym) != std::string::npos) {
        op = word;
        break;
      }
    }
    name = keys.front() + "_" + op;
    what = "is computed from key field " + join(keys, " and ") +
           ", and Rotor only follows a key field plus a loop-invariant offset. Compute it once";
  }
  std::string plain = s.text;
  if (!var.empty()) {
    plain = replace_once(plain, var + ".", "");
    for (std::size_t at = plain.find(var + "."); at != std::string::npos;
         at = plain.find(var + ".")) {
      plain.erase(at, var.size() + 1);
    }
  }
  return "subscript '" + s.text + "' " + what +
         " in the record as an integer key field (e.g. `int32_t " + name + ";`, set to " + plain +
         " when the data is loaded) and write " +
         replace_once(access_text(model, a), s.text, prefix + name) +
         ": Rotor then partitions by " + name;
}

bool is_serial(const Plan& p) {
  return p.kind == PlanKind::serial;
}

/// The smallest set of written, unbuffered arrays whose buffering makes the loop parallel
/// (greedy: buffer all, then drop each that is not needed); empty when even all do not help.
std::vector<std::string> minimal_buffered(const LoopModel& model) {
  std::vector<std::string> candidates;
  for (const ArrayDecl& d : model.arrays) {
    const bool written = std::any_of(model.accesses.begin(), model.accesses.end(),
                                     [&](const Access& a) { return a.array == d.name && a.write; });
    if (written && !model.is_buffered(d.name) && d.bufferable) {
      candidates.push_back(d.name);
    }
  }
  auto parallel_with = [&](const std::vector<std::string>& extra) {
    LoopModel m = model;
    m.buffered.insert(m.buffered.end(), extra.begin(), extra.end());
    return !is_serial(plan_loop(m));
  };
  if (candidates.empty() || !parallel_with(candidates)) {
    return {};
  }
  std::vector<std::string> chosen = candidates;
  for (const std::string& c : candidates) {
    std::vector<std::string> without;
    for (const std::string& x : chosen) {
      if (x != c) {
        without.push_back(x);
      }
    }
    if (parallel_with(without)) {
      chosen = without;
    }
  }
  return chosen;
}

/// An array whose dimension is indexed by two different key fields (`E.row(r.user)` and
/// `E.row(r.item)`): one record's user row may be another's item row. When one array per field
/// (planned again) makes the loop parallel, say so.
std::vector<std::string> split_fixes(const LoopModel& model) {
  std::vector<std::string> out;
  for (const ArrayDecl& d : model.arrays) {
    std::vector<std::string> fields;
    bool keyed = true;
    for (const Access& a : model.accesses) {
      if (a.array != d.name) {
        continue;
      }
      const auto key =
          std::find_if(a.subscripts.begin(), a.subscripts.end(),
                       [](const Subscript& s) { return s.kind == Subscript::Kind::key; });
      if (key == a.subscripts.end()) {
        keyed = false;
        break;
      }
      add_unique(fields, field_name(model, key->field));
    }
    if (!keyed || fields.size() < 2) {
      continue;
    }
    LoopModel m = model;
    m.arrays.clear();
    for (const ArrayDecl& other : model.arrays) {
      if (other.name != d.name) {
        m.arrays.push_back(other);
        continue;
      }
      for (const std::string& f : fields) {
        ArrayDecl split = other;
        split.name = other.name + "_" + f;
        m.arrays.push_back(split);
      }
    }
    std::vector<std::string> names;
    for (Access& a : m.accesses) {
      if (a.array == d.name) {
        const auto key =
            std::find_if(a.subscripts.begin(), a.subscripts.end(),
                         [](const Subscript& s) { return s.kind == Subscript::Kind::key; });
        a.array = d.name + "_" + field_name(model, key->field);
        a.text.clear();
        add_unique(names, a.array);
      }
    }
    const Plan p = plan_loop(m);
    if (is_serial(p)) {
      continue;
    }
    out.push_back(d.name + " is indexed by " + join(fields, " and by ") + ", so one record's " +
                  fields[0] + " element may be another record's " + fields[1] +
                  " element; if they are different things, keep them in separate arrays (" +
                  join(names) + "): the loop would then run as " + plan_summary(m, p));
  }
  return out;
}

} // namespace

std::string plan_sentence(const LoopModel& model, const Plan& plan) {
  const std::string fields = join(plan.fields);
  std::string out;
  switch (plan.kind) {
  case PlanKind::independent:
    out = "independent: no two records conflict, so any split of the records among workers is "
          "sound";
    break;
  case PlanKind::one_d:
    out = "one_d by " + fields + ": records are split into blocks by " + fields +
          ", each with the array blocks indexed by " + fields +
          ", and every worker runs its blocks alone";
    break;
  case PlanKind::rotation: {
    std::vector<std::string> rest(plan.fields.begin() + (plan.fields.empty() ? 0 : 1),
                                  plan.fields.end());
    out = "rotation by " + fields + ": each worker keeps the records and array blocks of its " +
          (plan.fields.empty() ? std::string("?") : plan.fields[0]) + " blocks while the " +
          join(rest, " and ") +
          " blocks rotate from worker to worker, so the blocks that run together share no key "
          "value";
    break;
  }
  case PlanKind::wavefront:
    out = "wavefront by " + fields + ": records form a grid of (" + fields +
          ") blocks that run anti-diagonal by anti-diagonal, so conflicting records still run "
          "in ascending key order";
    break;
  case PlanKind::unimodular: {
    std::string m;
    for (const auto& row : plan.matrix) {
      m += "[";
      for (std::size_t i = 0; i < row.size(); ++i) {
        m += (i ? " " : "") + std::to_string(row[i]);
      }
      m += "]";
    }
    out = "unimodular: the keys (" + fields + ") are skewed by " + m +
          " so that every dependence points forward, then the loop runs as " +
          to_string(plan.base) + " on the skewed keys";
    break;
  }
  case PlanKind::data_parallel:
    out = "data_parallel: records are split among workers in any way; the only conflicts are on "
          "buffered arrays";
    break;
  case PlanKind::serial:
    return "serial: no parallel schedule is sound for this loop, so it runs on one worker";
  }
  if (!plan.buffered.empty()) {
    out += " (" + join(plan.buffered) +
           " buffered: each worker updates its own copy; the changes are summed in when the loop "
           "ends)";
  }
  (void)model;
  return out;
}

std::string array_sentence(const LoopModel& model, const Plan& plan, const ArrayPlan& a) {
  const std::string index = index_words(model, a.name);
  const std::string conflicts = conflict_words(model, plan, a.name);
  if (!a.written) {
    return a.name + (plan.kind == PlanKind::serial ? " is only read"
                                                   : " is replicated: the loop only reads it, so "
                                                     "every worker reads its own copy");
  }
  if (plan.kind == PlanKind::serial) {
    return a.name + " is written: " + index + "; " + conflicts;
  }
  switch (a.role) {
  case ArrayRole::partitioned:
    return a.name + " is partitioned by " + a.field + ": " + index + "; " + conflicts +
           ", so its blocks stay on the worker that runs those records";
  case ArrayRole::rotating:
    return a.name + " rotates by " + a.field + ": " + index + "; " + conflicts +
           ", so its blocks move from worker to worker between steps, one worker at a time";
  case ArrayRole::buffered:
    return a.name + " is buffered (listed in buffered(...)): " + index + "; " + conflicts +
           ", which you allowed: each worker updates its own copy and the changes are summed "
           "into the array when the loop ends";
  case ArrayRole::local:
    return a.name + " is local: " + index + "; " + conflicts +
           ", so it needs no movement between workers";
  case ArrayRole::replicated:
    break;
  }
  return a.name + " is replicated: every worker reads its own copy";
}

std::vector<Blocker> blockers(const LoopModel& model, const Plan& plan) {
  std::vector<Blocker> out;
  if (!is_serial(plan)) {
    return out;
  }
  for (const Escape& e : model.escapes) {
    out.push_back({escape_kind_words(e) + (e.what.empty() ? "" : ": " + e.what), e.loc});
  }
  if (out.empty()) {
    out.push_back({plan.reason, plan.blocking ? *plan.blocking : SourceLoc{}});
  }
  return out;
}

namespace {

/// The suggestions about the escapes: their fixes and, where removing them is the fix, the plan
/// the loop would get. Returns false when nothing more can be said before the user changes the
/// loop (the fix changes what the loop touches).
bool escape_suggestions(const LoopModel& model, const LoopModel& clean, const Plan& cp,
                        std::vector<std::string>& out) {
  for (const Escape& e : model.escapes) {
    add_unique(out, escape_fix(e));
  }
  if (model.escapes.empty()) {
    return true;
  }
  const char* these = model.escapes.size() > 1 ? "these" : "that";
  const bool replannable = std::all_of(model.escapes.begin(), model.escapes.end(),
                                       [](const Escape& e) { return e.replannable; });
  if (!replannable) {
    // The fix changes what the loop touches (a container becomes a DistArray, a call is
    // inlined): Rotor cannot tell the plan before it sees the changed loop.
    out.push_back("once fixed, run rotor-cc --explain again: the plan depends on the accesses "
                  "that replace " +
                  std::string(model.escapes.size() > 1 ? "these" : "this"));
    return false;
  }
  if (!is_serial(cp)) {
    out.push_back(std::string("with ") + these + " fixed, the loop would run as " +
                  plan_summary(clean, cp));
    return false;
  }
  out.push_back(std::string("with ") + these +
                " fixed, the loop would still be serial: " + cp.reason);
  return true;
}

/// Rewrites for the unknown subscripts of the `blocking` arrays, and one sentence for those
/// computed from data (no rewrite makes them key fields).
void subscript_suggestions(const LoopModel& clean, const std::vector<std::string>& blocking,
                           std::vector<std::string>& out) {
  std::vector<std::string> data_subscripts;
  std::string data_array;
  for (const Access& a : clean.accesses) {
    if (std::find(blocking.begin(), blocking.end(), a.array) == blocking.end()) {
      continue;
    }
    for (const Subscript& s : a.subscripts) {
      if (s.kind != Subscript::Kind::unknown || s.text.empty()) {
        continue;
      }
      const std::string fix = unknown_fix(clean, a, s);
      if (!fix.empty()) {
        add_unique(out, fix);
      } else if (std::find(data_subscripts.begin(), data_subscripts.end(), "'" + s.text + "'") ==
                 data_subscripts.end()) {
        data_subscripts.push_back("'" + s.text + "'");
        data_array = data_array.empty() ? a.array : data_array;
      }
    }
  }
  if (!data_subscripts.empty()) {
    out.push_back(std::string("subscript") + (data_subscripts.size() > 1 ? "s " : " ") +
                  join(data_subscripts) + (data_subscripts.size() > 1 ? " are" : " is") +
                  " computed in the loop or read from data the loop writes, not from key fields, "
                  "so no partition can keep the records that touch one element of " +
                  data_array + " together");
  }
}

} // namespace

std::vector<std::string> suggestions(const LoopModel& model, const Plan& plan) {
  std::vector<std::string> out;
  if (!is_serial(plan)) {
    return out;
  }
  LoopModel clean = model;
  clean.escapes.clear();
  const Plan cp = model.escapes.empty() ? plan : plan_loop(clean);
  if (!escape_suggestions(model, clean, cp, out)) {
    return out;
  }
  const std::vector<std::string> relax = minimal_buffered(clean);
  // The arrays that block: those the smallest buffered list names, else every written one.
  std::vector<std::string> blocking = relax;
  if (blocking.empty()) {
    for (const Dependence& d : cp.dependences) {
      add_unique(blocking, d.array);
    }
  }
  subscript_suggestions(clean, blocking, out);
  for (const std::string& fix : split_fixes(clean)) {
    add_unique(out, fix);
  }
  if (!relax.empty()) {
    LoopModel m = clean;
    m.buffered.insert(m.buffered.end(), relax.begin(), relax.end());
    const std::string list = join(relax);
    out.push_back(
        "add buffered(" + list + ") to allow relaxed updates of " + list +
        " (each worker updates its own copy; the changes are summed in when the loop ends): "
        "the loop would then run as " +
        plan_summary(m, plan_loop(m)));
  }
  if (out.empty()) {
    out.push_back("no buffered(...) list makes this loop parallel; keep it serial, or change how "
                  "the conflicting accesses are indexed");
  }
  return out;
}

} // namespace rotor::analysis
