#include "ArrayRoles.h"

#include <algorithm>

namespace rotor::analysis::detail {
namespace {

bool indexes_field(const Access& a, int field) {
  return std::any_of(a.subscripts.begin(), a.subscripts.end(), [&](const Subscript& s) {
    return s.kind == Subscript::Kind::key && s.field == field;
  });
}

/// Every access of `array` has a key subscript for every field `key` uses.
bool follows(const LoopModel& model, const std::string& array,
             const std::vector<std::int64_t>& key) {
  for (const Access& a : model.accesses) {
    if (a.array != array) {
      continue;
    }
    for (std::size_t f = 0; f < key.size(); ++f) {
      if (key[f] != 0 && !indexes_field(a, static_cast<int>(f))) {
        return false;
      }
    }
  }
  return true;
}

/// The name that stands for partition key `r` of `c` in ArrayPlan::field.
std::string key_name(const LoopModel& model, const Candidate& c, std::size_t r) {
  return model.fields[static_cast<std::size_t>(c.fields[r])];
}

std::size_t used_keys(const Candidate& c) {
  return c.schedule == Schedule::one_d ? 1 : c.keys.size();
}

std::string local_field(const LoopModel& model, const std::string& array, const Candidate* c) {
  std::vector<int> order = c ? c->fields : std::vector<int>{};
  for (std::size_t f = 0; f < model.fields.size(); ++f) {
    order.push_back(static_cast<int>(f));
  }
  for (int f : order) {
    const bool all =
        std::all_of(model.accesses.begin(), model.accesses.end(),
                    [&](const Access& a) { return a.array != array || indexes_field(a, f); });
    if (all) {
      return model.fields[static_cast<std::size_t>(f)];
    }
  }
  return {};
}

} // namespace

std::vector<DimFootprint> footprint(const LoopModel& model, const std::string& array) {
  const ArrayDecl* decl = model.array(array);
  const std::size_t rank = decl ? static_cast<std::size_t>(std::max(decl->rank, 0)) : 0;
  std::vector<DimFootprint> dims(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    bool first = true;
    bool keyed = true;
    DimFootprint fp;
    for (const Access& a : model.accesses) {
      if (a.array != array) {
        continue;
      }
      if (d >= a.subscripts.size() || a.subscripts[d].kind != Subscript::Kind::key) {
        keyed = false;
        break;
      }
      const Subscript& s = a.subscripts[d];
      if (first) {
        fp = {s.field, s.offset, s.offset};
        first = false;
      } else if (s.field != fp.field || s.offset.symbol != fp.lo.symbol) {
        keyed = false;
        break;
      } else {
        fp.lo.value = std::min(fp.lo.value, s.offset.value);
        fp.hi.value = std::max(fp.hi.value, s.offset.value);
      }
    }
    if (keyed && !first) {
      dims[d] = fp;
    }
  }
  return dims;
}

std::optional<std::vector<ArrayPlan>> assign_roles(const LoopModel& model, const Candidate* c,
                                                   const std::vector<SearchDependence>& deps,
                                                   std::string* why_not) {
  std::vector<ArrayPlan> out;
  for (const ArrayDecl& decl : model.arrays) {
    ArrayPlan ap;
    ap.name = decl.name;
    ap.dims = footprint(model, decl.name);
    ap.written = std::any_of(model.accesses.begin(), model.accesses.end(),
                             [&](const Access& a) { return a.array == decl.name && a.write; });
    std::vector<const SearchDependence*> mine;
    for (const SearchDependence& d : deps) {
      if (model.accesses[static_cast<std::size_t>(d.raw->source)].array == decl.name) {
        mine.push_back(&d);
      }
    }
    if (model.is_buffered(decl.name)) {
      ap.role = ArrayRole::buffered;
      ap.reason = "listed in buffered(...): per-worker copies, merged after each step";
    } else if (!ap.written) {
      ap.role = ArrayRole::replicated;
      ap.reason = "only read";
    } else if (mine.empty()) {
      ap.role = ArrayRole::local;
      ap.field = local_field(model, decl.name, c);
      ap.reason = "written only at elements no other iteration touches";
    } else {
      std::optional<std::size_t> home;
      for (std::size_t r = 0; c && r < used_keys(*c) && !home; ++r) {
        const bool strict = c->schedule != Schedule::wavefront;
        const bool keeps = std::all_of(mine.begin(), mine.end(), [&](const SearchDependence* d) {
          return !strict || zero_on(c->keys[r], *d);
        });
        if (keeps && follows(model, decl.name, c->keys[r])) {
          home = r;
        }
      }
      if (!home) {
        if (why_not) {
          *why_not = "array '" + decl.name +
                     "' is written but no partition key indexes every access of it and keeps its "
                     "conflicts in one block";
        }
        return std::nullopt;
      }
      ap.field = key_name(model, *c, *home);
      if (*home == 0) {
        ap.role = ArrayRole::partitioned;
        ap.reason = "indexed by " + ap.field + ": blocks stay with the records of their block";
      } else {
        ap.role = ArrayRole::rotating;
        ap.reason = "indexed by " + ap.field + ": blocks move from worker to worker between steps";
      }
      if (c->kind == PlanKind::unimodular) {
        ap.reason += " (skewed key " + std::to_string(*home) + ")";
      }
    }
    out.push_back(std::move(ap));
  }
  return out;
}

} // namespace rotor::analysis::detail
