#include "DependenceDetail.h"

#include <algorithm>

namespace rotor::analysis {
namespace detail {
namespace {

/// What one array dimension says about a pair of accesses.
enum class DimResult { no_constraint, distance, disjoint };

struct DimFact {
  DimResult result = DimResult::no_constraint;
  int field = -1;
  std::optional<std::int64_t> distance; // nullopt: a fixed but unknown distance (symbols differ)
};

/// p runs subscript `a`, q runs subscript `b`; when can they name the same index?
DimFact compare(const Subscript& a, const Subscript& b) {
  using K = Subscript::Kind;
  DimFact fact;
  if (a.kind == K::key && b.kind == K::key && a.field == b.field) {
    // p.f + a.off == q.f + b.off  =>  q.f - p.f == a.off - b.off
    fact.result = DimResult::distance;
    fact.field = a.field;
    std::int64_t d = 0;
    // Offsets beyond +-2^40 (or a difference that overflows) are treated as unknown: sound, and
    // it keeps the interval arithmetic of plan search far from overflow.
    constexpr std::int64_t k_limit = INT64_C(1) << 40;
    if (a.offset.symbol == b.offset.symbol &&
        !__builtin_sub_overflow(a.offset.value, b.offset.value, &d) && d > -k_limit &&
        d < k_limit) {
      fact.distance = d;
    }
    return fact;
  }
  if (a.kind == K::constant && b.kind == K::constant && a.offset.symbol == b.offset.symbol &&
      a.offset.value != b.offset.value) {
    fact.result = DimResult::disjoint; // c + 1 never equals c + 2, 3 never equals 4
  }
  return fact;
}

} // namespace

std::vector<RawDependence> raw_dependences(const LoopModel& model) {
  std::vector<RawDependence> out;
  const int n = static_cast<int>(model.accesses.size());
  const std::size_t nfields = model.fields.size();
  for (int i = 0; i < n; ++i) {
    for (int j = i; j < n; ++j) {
      const Access& a = model.accesses[i];
      const Access& b = model.accesses[j];
      if (a.array != b.array || (!a.write && !b.write)) {
        continue;
      }
      RawDependence dep;
      dep.source = i;
      dep.sink = j;
      dep.distance.assign(nfields, std::nullopt);
      std::vector<bool> exact(nfields, false);
      bool possible = true;
      const std::size_t rank = std::min(a.subscripts.size(), b.subscripts.size());
      for (std::size_t d = 0; d < rank && possible; ++d) {
        DimFact fact = compare(a.subscripts[d], b.subscripts[d]);
        if (fact.result == DimResult::disjoint) {
          possible = false;
        } else if (fact.result == DimResult::distance && fact.distance && fact.field >= 0 &&
                   static_cast<std::size_t>(fact.field) < nfields) {
          const auto f = static_cast<std::size_t>(fact.field);
          if (exact[f] && *dep.distance[f] != *fact.distance) {
            possible = false; // two dimensions demand different distances
          } else {
            dep.distance[f] = fact.distance;
            exact[f] = true;
          }
        }
      }
      if (!possible) {
        continue;
      }
      const bool all_zero = std::all_of(dep.distance.begin(), dep.distance.end(),
                                        [](const auto& e) { return e && *e == 0; });
      if (all_zero && model.space == SpaceKind::index_space) {
        continue; // the same point: one iteration, no conflict between iterations
      }
      out.push_back(std::move(dep));
    }
  }
  return out;
}

std::vector<DepEntry> normalise(const std::vector<std::optional<std::int64_t>>& distance,
                                bool ordered) {
  std::vector<DepEntry> out(distance.size());
  auto exact = [](std::int64_t v) {
    DepEntry e;
    e.kind = DepEntry::Kind::distance;
    e.distance = v;
    return e;
  };
  std::size_t lead = 0;
  while (lead < distance.size() && distance[lead] && *distance[lead] == 0) {
    out[lead] = exact(0);
    ++lead;
  }
  if (lead == distance.size()) {
    return out;
  }
  if (distance[lead]) {
    const std::int64_t sign = *distance[lead] < 0 ? -1 : 1;
    for (std::size_t f = lead; f < distance.size(); ++f) {
      out[f] = distance[f] ? exact(sign * *distance[f]) : DepEntry{};
    }
    return out;
  }
  if (!ordered) {
    for (std::size_t f = lead; f < distance.size(); ++f) {
      out[f] = distance[f] ? exact(*distance[f]) : DepEntry{};
    }
    return out;
  }
  // Leading `*` in key order: the later iteration has the larger (or equal) value here; after it,
  // both signs occur.
  out[lead].kind = DepEntry::Kind::nonneg;
  for (std::size_t f = lead + 1; f < distance.size(); ++f) {
    out[f] = (distance[f] && *distance[f] == 0) ? exact(0) : DepEntry{};
  }
  return out;
}

Interval to_interval(const DepEntry& entry) {
  switch (entry.kind) {
  case DepEntry::Kind::distance:
    return {entry.distance, entry.distance};
  case DepEntry::Kind::nonneg:
    return {0, Interval::k_inf};
  case DepEntry::Kind::any:
    break;
  }
  return {};
}

Interval combine(const std::vector<std::int64_t>& coef, const std::vector<Interval>& v) {
  auto clamp = [](std::int64_t x) {
    return std::max(-Interval::k_inf, std::min(Interval::k_inf, x));
  };
  Interval sum{0, 0};
  for (std::size_t c = 0; c < coef.size() && c < v.size(); ++c) {
    if (coef[c] == 0) {
      continue;
    }
    std::int64_t lo = v[c].lo;
    std::int64_t hi = v[c].hi;
    // An infinite end times a coefficient stays infinite; finite ends are small.
    std::int64_t a =
        (lo <= -Interval::k_inf) ? -Interval::k_inf * (coef[c] > 0 ? 1 : -1) : clamp(lo * coef[c]);
    std::int64_t b =
        (hi >= Interval::k_inf) ? Interval::k_inf * (coef[c] > 0 ? 1 : -1) : clamp(hi * coef[c]);
    sum.lo = clamp(sum.lo + std::min(a, b));
    sum.hi = clamp(sum.hi + std::max(a, b));
  }
  return sum;
}

} // namespace detail

std::string DepEntry::to_string() const {
  switch (kind) {
  case Kind::distance:
    return std::to_string(distance);
  case Kind::nonneg:
    return "+";
  case Kind::any:
    break;
  }
  return "*";
}

std::string Dependence::to_string() const {
  std::string s = "(";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    s += (i ? ", " : "") + entries[i].to_string();
  }
  return s + ")";
}

std::vector<Dependence> dependence_vectors(const LoopModel& model) {
  std::vector<Dependence> out;
  for (const detail::RawDependence& raw : detail::raw_dependences(model)) {
    Dependence dep;
    dep.array = model.accesses[raw.source].array;
    dep.source = raw.source;
    dep.sink = raw.sink;
    dep.entries = detail::normalise(raw.distance, model.ordered);
    out.push_back(std::move(dep));
  }
  return out;
}

} // namespace rotor::analysis
