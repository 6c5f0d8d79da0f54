#pragma once
// Private: raw dependence vectors and the interval view of dependence entries that plan search
// uses. Public results (Plan.h's Dependence) are the normalised form of these.

#include "rotor/analysis/LoopModel.h"
#include "rotor/analysis/Plan.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace rotor::analysis::detail {

/// A distance per key field between two iterations p (running access `source`) and q (running
/// access `sink`) that touch the same element: q.key - p.key. nullopt: any distance. The set it
/// stands for is symmetric (the pair may also run the other way round), which normalisation
/// resolves.
struct RawDependence {
  int source = -1;
  int sink = -1;
  std::vector<std::optional<std::int64_t>> distance;
};

/// Every pair of accesses (i <= j) to one array with at least one write whose elements may
/// coincide, over `model.fields`. Over an IndexSpace an all-zero vector is the same iteration and
/// is dropped; over a Dataset it is kept (distinct records may share key values).
std::vector<RawDependence> raw_dependences(const LoopModel& model);

/// Lexicographic normalisation. `ordered`: the source is the earlier iteration in key order, so a
/// leading `*` becomes `+` (and nonzero distances after it become `*`). Unordered: a vector and its
/// negation are the same dependence; a leading negative distance is negated, `*` stays `*`.
std::vector<DepEntry> normalise(const std::vector<std::optional<std::int64_t>>& distance,
                                bool ordered);

/// A closed integer interval with infinite ends (k_inf stands for infinity).
struct Interval {
  static constexpr std::int64_t k_inf = INT64_C(1) << 50;
  std::int64_t lo = -k_inf;
  std::int64_t hi = k_inf;

  bool is_zero() const { return lo == 0 && hi == 0; }
  bool is_nonneg() const { return lo >= 0; }
};

Interval to_interval(const DepEntry& entry);
/// sum_c coef[c] * v[c] in interval arithmetic (a superset of the true set: sound for checks).
Interval combine(const std::vector<std::int64_t>& coef, const std::vector<Interval>& v);

} // namespace rotor::analysis::detail
