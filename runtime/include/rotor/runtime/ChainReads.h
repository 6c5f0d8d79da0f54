#pragma once
/// \file
/// How rotor-cc's inspector reads a ragged nest's bound and keys through a pointer chain
/// (namespace rotor::codegen; docs/design/containers.md, "Pointer chains"). Each scalar the
/// inspector loads on the way (`this->p`, `p->docs`, `docs[d]`, `docs[d]->length`,
/// `docs[d]->words[n]`) is noted; run_loop then checks that no array the loop writes (a bound
/// view or DistArray, a staged table's own rows or row pointers, a reduction variable) shares a
/// byte with them. If one does, the counts and keys read before the loop may not be the loop's:
/// run_loop runs nothing and the code after it runs the loop as written.
///
/// \code
///   // before (user code)                       // after (rotor-cc output, abridged)
///   for (int m = 0; m < M; m++)                  ::rotor::codegen::ChainReads rotor_reads;
///     for (int n = 0; n < p->docs[m]->length;    rotor_inspection.ragged(M,
///          n++) {                                  [&](std::int64_t m) { return rotor_reads.note(
///       int w = p->docs[m]->words[n];                rotor_reads.note(...->docs)[m])->length); },
///       ...                                        ...);
///     }                                          run_loop(...);
///                                                if (ChainReads::take_declined()) { loop as
///                                                written }
/// \endcode

#include "rotor/runtime/detail/ChainReadRanges.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace rotor::codegen {

class ChainReads {
public:
  ChainReads() { detail::live_chain_reads().push_back(&live_); }
  ~ChainReads() {
    auto& live = detail::live_chain_reads();
    live.erase(std::remove(live.begin(), live.end(), &live_), live.end());
  }
  ChainReads(const ChainReads&) = delete;
  ChainReads& operator=(const ChainReads&) = delete;

  /// `x`, after noting its bytes as read.
  template <class T> const T& note(const T& x) {
    static_assert(std::is_scalar_v<T>, "rotor::codegen::ChainReads: a pointer or an integer");
    const auto begin = reinterpret_cast<std::uintptr_t>(&x);
    const auto end = begin + sizeof(T);
    if (!noted_before(begin, end) && !extends_last(begin, end)) {
      add(begin, end);
    }
    return x;
  }

  /// Notes the `count` elements from `first` as read (a row the inspector reads whole, each
  /// element once: Inspection::ragged_rows) and returns `first`.
  template <class T> const T* note_elements(const T* first, std::size_t count) {
    static_assert(std::is_scalar_v<T>, "rotor::codegen::ChainReads: a row of scalars");
    const auto begin = reinterpret_cast<std::uintptr_t>(first);
    const auto end = begin + count * sizeof(T);
    if (count != 0 && !noted_before(begin, end) && !extends_last(begin, end)) {
      add(begin, end);
    }
    return first;
  }

  /// Whether run_loop declined the last loop on this thread (its chain reads were written):
  /// the caller then runs the loop as written. Clears the flag.
  static bool take_declined() {
    const bool declined = detail::chain_loop_declined_value;
    detail::chain_loop_declined_value = false;
    return declined;
  }

  const detail::ChainReadRanges& ranges() const { return live_; }

private:
  /// Whether [begin, end) was noted before and the memo still holds it: the chain's steps
  /// before the last (`this->p`, `p->docs`, `docs[d]`) are the same bytes for every n of row d.
  bool noted_before(std::uintptr_t begin, std::uintptr_t end) const {
    const Seen& seen = seen_[slot_of(begin)];
    return seen.begin == begin && end <= seen.end;
  }

  /// Whether the run the last new bytes went to holds [begin, end) or, continued by it (a row's
  /// elements, read in order between the chain's other steps), now does.
  bool extends_last(std::uintptr_t begin, std::uintptr_t end) {
    return last_ < live_.ranges.size() && extends(live_.ranges[last_], begin, end);
  }

  /// Coalesces with one of the last few runs, else starts a run; remembers the bytes.
  void add(std::uintptr_t begin, std::uintptr_t end) {
    seen_[slot_of(begin)] = {begin, end};
    auto& ranges = live_.ranges;
    std::size_t run = ranges.size();
    for (const std::size_t r : recent_) {
      if (r < ranges.size() && extends(ranges[r], begin, end)) {
        run = r;
        break;
      }
    }
    if (run == ranges.size()) {
      recent_[next_] = ranges.size();
      next_ = (next_ + 1) % recent_.size();
      ranges.emplace_back(begin, end);
    }
    last_ = run;
  }

  /// Whether `run` holds [begin, end) or now does, grown by it at its end.
  static bool extends(std::pair<std::uintptr_t, std::uintptr_t>& run, std::uintptr_t begin,
                      std::uintptr_t end) {
    if (run.first <= begin && end <= run.second) {
      return true;
    }
    if (run.second == begin) {
      run.second = end;
      return true;
    }
    return false;
  }

  static std::size_t slot_of(std::uintptr_t begin) {
    return (begin / alignof(std::max_align_t)) % k_seen;
  }

  /// A byte range noted before (it lies in one of the runs, which only grow).
  struct Seen {
    std::uintptr_t begin = 0, end = 0;
  };

  static constexpr std::size_t k_seen = 64;
  detail::ChainReadRanges live_;
  std::array<Seen, k_seen> seen_{};
  std::array<std::size_t, 8> recent_{static_cast<std::size_t>(-1), static_cast<std::size_t>(-1),
                                     static_cast<std::size_t>(-1), static_cast<std::size_t>(-1),
                                     static_cast<std::size_t>(-1), static_cast<std::size_t>(-1),
                                     static_cast<std::size_t>(-1), static_cast<std::size_t>(-1)};
  std::size_t next_ = 0;
  std::size_t last_ = static_cast<std::size_t>(-1); ///< the run the last new bytes went to
};

} // namespace rotor::codegen
