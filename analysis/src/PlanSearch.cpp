#include "PlanSearch.h"

#include <algorithm>

namespace rotor::analysis::detail {
namespace {

std::vector<std::int64_t> unit(std::size_t nfields, int f) {
  std::vector<std::int64_t> key(nfields, 0);
  key[static_cast<std::size_t>(f)] = 1;
  return key;
}

/// Row `row` (over fields a, b) embedded into a key over all fields.
std::vector<std::int64_t> embed(std::size_t nfields, int a, int b,
                                const std::vector<std::int64_t>& row) {
  std::vector<std::int64_t> key(nfields, 0);
  key[static_cast<std::size_t>(a)] = row[0];
  key[static_cast<std::size_t>(b)] = row[1];
  return key;
}

/// Field subsets of size k in lexicographic order.
void combinations(int n, int k, int start, std::vector<int>& cur,
                  std::vector<std::vector<int>>& out) {
  if (static_cast<int>(cur.size()) == k) {
    out.push_back(cur);
    return;
  }
  for (int f = start; f < n; ++f) {
    cur.push_back(f);
    combinations(n, k, f + 1, cur, out);
    cur.pop_back();
  }
}

/// The skews tried, in order: [[1, s], [0, 1]] then [[1, 0], [s, 1]] for s = 1, -1, 2, -2; with
/// `swapped`, the rows exchanged (so that one_d can use either skewed row as its key).
std::vector<std::vector<std::vector<std::int64_t>>> skews() {
  std::vector<std::vector<std::vector<std::int64_t>>> out;
  for (std::int64_t s : {1, -1, 2, -2}) {
    out.push_back({{1, s}, {0, 1}});
    out.push_back({{1, 0}, {s, 1}});
  }
  return out;
}

} // namespace

std::vector<SearchDependence> search_view(const std::vector<RawDependence>& raw) {
  std::vector<SearchDependence> out;
  for (const RawDependence& r : raw) {
    SearchDependence d;
    d.raw = &r;
    for (const auto& e : r.distance) {
      d.exact.push_back(e ? Interval{*e, *e} : Interval{});
    }
    for (const DepEntry& e : normalise(r.distance, /*ordered=*/true)) {
      d.oriented.push_back(to_interval(e));
    }
    out.push_back(std::move(d));
  }
  return out;
}

bool zero_on(const std::vector<std::int64_t>& key, const SearchDependence& d) {
  return combine(key, d.exact).is_zero();
}

bool legal(const Candidate& c, const std::vector<SearchDependence>& deps) {
  for (const SearchDependence& d : deps) {
    switch (c.schedule) {
    case Schedule::one_d:
      if (!zero_on(c.keys[0], d)) {
        return false;
      }
      break;
    case Schedule::rotation:
      if (std::none_of(c.keys.begin(), c.keys.end(),
                       [&](const auto& key) { return zero_on(key, d); })) {
        return false;
      }
      break;
    case Schedule::wavefront:
      for (const auto& key : c.keys) {
        if (!combine(key, d.oriented).is_nonneg()) {
          return false;
        }
      }
      break;
    }
  }
  return true;
}

std::vector<Candidate> candidate_plans(std::size_t nfields, bool ordered) {
  std::vector<Candidate> out;
  out.reserve(nfields);
  const int n = static_cast<int>(nfields);
  for (int f = 0; f < n; ++f) {
    out.push_back({PlanKind::one_d, Schedule::one_d, {f}, {}, {unit(nfields, f)}});
  }
  if (!ordered) {
    for (int k = 2; k <= n; ++k) {
      std::vector<std::vector<int>> subsets;
      std::vector<int> cur;
      combinations(n, k, 0, cur, subsets);
      for (const auto& s : subsets) {
        Candidate c{PlanKind::rotation, Schedule::rotation, s, {}, {}};
        for (int f : s) {
          c.keys.push_back(unit(nfields, f));
        }
        out.push_back(std::move(c));
      }
    }
  }
  std::vector<std::vector<int>> pairs;
  std::vector<int> cur;
  combinations(n, 2, 0, cur, pairs);
  for (const auto& p : pairs) {
    out.push_back({PlanKind::wavefront,
                   Schedule::wavefront,
                   p,
                   {},
                   {unit(nfields, p[0]), unit(nfields, p[1])}});
  }
  std::vector<Schedule> bases = {Schedule::one_d, Schedule::rotation, Schedule::wavefront};
  for (Schedule base : bases) {
    if (base == Schedule::rotation && ordered) {
      continue;
    }
    for (const auto& p : pairs) {
      for (auto m : skews()) {
        for (int swap = 0; swap < (base == Schedule::one_d ? 2 : 1); ++swap) {
          if (swap) {
            std::swap(m[0], m[1]);
          }
          if (base == Schedule::one_d && (m[0][0] == 0 || m[0][1] == 0)) {
            continue; // a plain field: one_d proper already tried it
          }
          Candidate c{PlanKind::unimodular, base, p, m, {}};
          c.keys.push_back(embed(nfields, p[0], p[1], m[0]));
          c.keys.push_back(embed(nfields, p[0], p[1], m[1]));
          out.push_back(std::move(c));
        }
      }
    }
  }
  return out;
}

} // namespace rotor::analysis::detail
