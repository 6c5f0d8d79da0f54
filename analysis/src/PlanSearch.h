#pragma once
// Private: candidate schedules, most parallel first, and the legality test of each against the
// dependence vectors.

#include "DependenceDetail.h"

#include <string>
#include <vector>

namespace rotor::analysis::detail {

/// A dependence with both views plan search needs: `raw` (exact where the model is, for "is this
/// linear form zero") and `oriented` (normalised in key order, for "is it non-negative").
struct SearchDependence {
  const RawDependence* raw = nullptr;
  std::vector<Interval> exact;    ///< raw distances as intervals (`*` = everything)
  std::vector<Interval> oriented; ///< key-order normalisation as intervals
};

std::vector<SearchDependence> search_view(const std::vector<RawDependence>& raw);

/// How blocks run: each candidate partitions by one or more partition keys, linear forms over the
/// key fields (a unit vector for a plain field, a row of the skew for unimodular).
enum class Schedule {
  one_d,     ///< blocks of key 0 run together
  rotation,  ///< blocks that differ in every key run together (unordered loops)
  wavefront, ///< blocks (I, J) of keys 0 and 1 run along anti-diagonals I + J
};

struct Candidate {
  PlanKind kind = PlanKind::serial;
  Schedule schedule = Schedule::one_d;
  std::vector<int> fields;                       ///< Plan::fields as indexes into model.fields
  std::vector<std::vector<std::int64_t>> matrix; ///< unimodular: rows over `fields`
  std::vector<std::vector<std::int64_t>> keys;   ///< partition keys over all model.fields
};

/// Whether `c`'s schedule keeps every dependence in `deps` ordered.
bool legal(const Candidate& c, const std::vector<SearchDependence>& deps);

/// Whether linear form `key` is exactly zero on dependence `d`.
bool zero_on(const std::vector<std::int64_t>& key, const SearchDependence& d);

/// Every candidate for a loop with `nfields` key fields, in the order plan_loop tries them:
/// one_d per field; rotation over 2..n fields (unordered only); wavefront over field pairs;
/// unimodular skews of field pairs with base one_d, rotation (unordered only), wavefront.
std::vector<Candidate> candidate_plans(std::size_t nfields, bool ordered);

} // namespace rotor::analysis::detail
