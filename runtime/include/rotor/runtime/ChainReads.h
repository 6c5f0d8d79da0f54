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
    add(begin, begin + sizeof(T));
    return x;
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
  /// Coalesces with one of the last few runs (a row's elements, read in order between other
  /// steps of the chain, extend one run), else starts a run.
  void add(std::uintptr_t begin, std::uintptr_t end) {
    auto& ranges = live_.ranges;
    for (const std::size_t r : recent_) {
      if (r >= ranges.size()) {
        continue;
      }
      auto& run = ranges[r];
      if (run.first <= begin && end <= run.second) {
        return;
      }
      if (run.second == begin) {
        run.second = end;
        return;
      }
    }
    recent_[next_] = ranges.size();
    next_ = (next_ + 1) % recent_.size();
    ranges.emplace_back(begin, end);
  }

  detail::ChainReadRanges live_;
  std::array<std::size_t, 8> recent_{static_cast<std::size_t>(-1), static_cast<std::size_t>(-1),
                                     static_cast<std::size_t>(-1), static_cast<std::size_t>(-1),
                                     static_cast<std::size_t>(-1), static_cast<std::size_t>(-1),
                                     static_cast<std::size_t>(-1), static_cast<std::size_t>(-1)};
  std::size_t next_ = 0;
};

} // namespace rotor::codegen
