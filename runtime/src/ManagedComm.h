#pragma once
/// \file
/// Bösen-style managed communication for buffered arrays (`--rotor-managed-comm=BYTES`,
/// docs/design/buffered.md): a worker's flush sends its largest changes first within a byte
/// budget; the rest stay in the worker's view and go out with a later flush, at the latest `s`
/// flushes after they were first held back, and all of them when the worker's share ends (so the
/// sum at the loop's end is the full merge). Not for user code.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rotor::detail {

/// One changed row (or element) a flush may send.
struct SendCandidate {
  double priority = 0;  ///< the largest |delta| in the row
  std::int64_t key = 0; ///< the row (ties: lower keys first, so every run chooses alike)
  bool forced = false;  ///< held back for s flushes already: due now, whatever the budget
  bool send = false;    ///< the choice
};

/// Marks the candidates a flush sends: every forced one, then the largest priorities until
/// `budget` candidates are sent (forced ones count against the budget).
inline void choose_sends(std::vector<SendCandidate>& candidates, std::size_t budget) {
  std::vector<SendCandidate*> rest;
  std::size_t sent = 0;
  for (SendCandidate& c : candidates) {
    c.send = c.forced;
    if (c.forced) {
      ++sent;
    } else {
      rest.push_back(&c);
    }
  }
  const std::size_t room = budget > sent ? budget - sent : 0;
  if (room >= rest.size()) {
    for (SendCandidate* c : rest) {
      c->send = true;
    }
    return;
  }
  const auto first = [](const SendCandidate* a, const SendCandidate* b) {
    return a->priority != b->priority ? a->priority > b->priority : a->key < b->key;
  };
  std::nth_element(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(room), rest.end(),
                   first);
  for (std::size_t k = 0; k < room; ++k) {
    rest[k]->send = true;
  }
}

/// The largest |value| of `count` values (a row's send priority); a NaN change goes first.
template <class T> double largest_magnitude(const T* values, std::int64_t count) {
  double m = 0;
  for (std::int64_t j = 0; j < count; ++j) {
    const double v = std::fabs(static_cast<double>(values[j]));
    if (std::isnan(v)) {
      return HUGE_VAL;
    }
    m = std::max(m, v);
  }
  return m;
}

} // namespace rotor::detail
