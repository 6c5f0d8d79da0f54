#pragma once
/// \file
/// Per-worker copies of variables declared outside a parallel loop (issue 16, item 3): scratch
/// buffers rotor-cc privatises by itself, and the variables a pragma names in `private(...)`.
/// rotor-cc declares one WorkerCopies per variable before the loop's run_loop call and binds the
/// body's name to the worker's copy:
///
/// \code
///   ::rotor::codegen::WorkerCopies<decltype(rng)> rotor_private_rng(rng, true);
///   ::rotor::codegen::run_loop(..., [&](Doc& d, ...) { auto& rng = rotor_private_rng.local(); ...
/// \endcode
///
/// Each worker slot (rotor::detail::current_worker_slot; the serial replay of --rotor-validate is
/// slot 0) gets a copy made on its first use from the outside value as it was when the loop
/// started. With `reseed` and a type with a `seed(...)` member (the standard generators), the
/// copy is then re-seeded with `std::seed_seq{lo, hi, rank, slot}` where lo/hi are the low and
/// high 32 bits of the first output of another copy of the outside generator (the outside object
/// itself is not advanced). The outside variable keeps its value from before the loop: after the
/// loop it holds neither a worker's copy nor the serial run's last iteration.

#include "rotor/distarray/detail/Collective.h"
#include "rotor/runtime/ContainerView.h"
#include "rotor/runtime/detail/ChainReadRanges.h"
#include "rotor/runtime/detail/WorkerSlot.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <mutex>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

namespace rotor::detail {

template <class T, class = void> struct HasSeedSequence : std::false_type {};
template <class T>
struct HasSeedSequence<
    T, std::void_t<decltype(std::declval<T&>().seed(std::declval<std::seed_seq&>()))>>
    : std::true_type {};
template <class T, class = void> struct HasIntegerSeed : std::false_type {};
template <class T>
struct HasIntegerSeed<T, std::void_t<decltype(std::declval<T&>().seed(std::uint32_t{})),
                                     decltype(std::declval<T&>()())>> : std::true_type {};

/// The documented per-worker seed sequence's four words for generator `outside` at `rank`,
/// `slot` (its first output from a copy, so `outside` is unchanged).
template <class T> std::array<std::uint32_t, 4> worker_seed(const T& outside, int rank, int slot) {
  T probe(outside);
  const auto first = static_cast<std::uint64_t>(probe());
  return {static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(first >> 32),
          static_cast<std::uint32_t>(rank), static_cast<std::uint32_t>(slot)};
}

} // namespace rotor::detail

namespace rotor::codegen {

/// One copy of a T per worker slot, made on the slot's first local() (see the file comment).
/// T is copy-constructible, or a one-dimensional array of copy-assignable elements.
template <class T> class WorkerCopies {
  static_assert(std::rank_v<T> <= 1,
                "rotor: a private or scratch array must have one dimension (use std::vector)");

public:
  /// `outside` must outlive the loop; `reseed`: re-seed a generator per worker.
  WorkerCopies(T& outside, bool reseed) : outside_(outside), reseed_(reseed) {
    original_.add(&outside, sizeof(T)); // the serial program writes it (ChainReads.h)
  }
  WorkerCopies(const WorkerCopies&) = delete;
  WorkerCopies& operator=(const WorkerCopies&) = delete;

  /// The calling worker's copy (outside a loop body: slot 0's).
  T& local() {
    const int slot = std::max(detail::current_worker_slot(), 0);
    if (slot < k_fast) {
      if (Holder* h = fast_[slot].load(std::memory_order_acquire)) {
        return h->value;
      }
    }
    return make(slot);
  }

  /// The copy of slot `slot`, making it if needed (tests; rotor-cc uses local()).
  T& slot_copy(int slot) { return make(slot); }

private:
  struct Holder {
    T value;
  };
  static constexpr int k_fast = 256;

  T& make(int slot) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (slot < k_fast) {
      if (Holder* h = fast_[slot].load(std::memory_order_acquire)) {
        return h->value;
      }
    }
    for (auto& [s, h] : slow_) {
      if (s == slot) {
        return h->value;
      }
    }
    std::unique_ptr<Holder> h = copy_of_outside(slot);
    Holder* raw = h.get();
    owned_.push_back(std::move(h));
    if (slot < k_fast) {
      fast_[slot].store(raw, std::memory_order_release);
    } else {
      slow_.emplace_back(slot, raw);
    }
    return raw->value;
  }

  std::unique_ptr<Holder> copy_of_outside(int slot) const {
    std::unique_ptr<Holder> h;
    if constexpr (std::is_array_v<T>) {
      h.reset(new Holder());
      std::copy(std::begin(outside_), std::end(outside_), std::begin(h->value));
    } else {
      h.reset(new Holder{outside_});
      if constexpr (detail::HasIntegerSeed<T>::value) {
        if (reseed_) {
          const auto words = detail::worker_seed(outside_, detail::collective().rank(), slot);
          if constexpr (detail::HasSeedSequence<T>::value) {
            std::seed_seq seq(words.begin(), words.end());
            h->value.seed(seq);
          } else {
            h->value.seed(words[0] ^ words[1] ^ (words[2] * 0x9e3779b9u) ^
                          (words[3] * 0x85ebca6bu));
          }
        }
      }
    }
    return h;
  }

  T& outside_;
  detail::WrittenOriginals original_;
  bool reseed_;
  std::array<std::atomic<Holder*>, k_fast> fast_{};
  std::mutex mutex_;
  std::vector<std::pair<int, Holder*>> slow_;
  std::vector<std::unique_ptr<Holder>> owned_;
};

/// `private(p)` on a `T* p` member (docs/design/containers.md, "Private pointer arrays"): each
/// worker slot gets its own `length` elements, copied from `p[0..length)` on the slot's first
/// use (an iteration that runs names them, so the program's array has them), for the length of
/// one loop. The program's array keeps its values from before the loop.
template <class T> class PrivateArray {
public:
  PrivateArray(T* outside, std::int64_t length)
      : outside_(outside), length_(std::max<std::int64_t>(length, 0)), copies_(empty_, false) {
    original_.add(outside_, static_cast<std::size_t>(length_) * sizeof(T));
  }

  /// The calling worker's elements (outside a loop body: slot 0's), viewed as a staged row is.
  StagedRow<T> local() {
    std::vector<T>& mine = copies_.local();
    if (static_cast<std::int64_t>(mine.size()) != length_) { // only this worker touches `mine`
      mine.assign(outside_, outside_ + length_);
    }
    return StagedRow<T>(mine.data(), length_);
  }

private:
  T* outside_;
  std::int64_t length_;
  std::vector<T> empty_;
  detail::WrittenOriginals original_;
  WorkerCopies<std::vector<T>> copies_;
};

/// glibc's random() algorithm (its default TYPE_3 state: an additive feedback generator over 31
/// words, r[i] = r[i - 3] + r[i - 31] mod 2^32, each draw r[i] >> 1), one object per stream and
/// without libc's lock: a program that drew from random() keeps the generator it was written
/// with. seed(s) is srandom(s) (the same draws as glibc's random() after srandom(s));
/// seed(seq) fills the 31 words from a std::seed_seq (the low bit of the first set, so the low
/// bits are not all zero) and discards 310 draws, as srandom does.
class LibcStream {
public:
  using result_type = std::uint32_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return 0x7fffffffu; }

  explicit LibcStream(std::uint32_t s = 1) { seed(s); }

  void seed(std::uint32_t s) {
    std::int32_t word = static_cast<std::int32_t>(s == 0 ? 1 : s);
    words_[0] = static_cast<std::uint32_t>(word);
    for (std::size_t i = 1; i < k_words; ++i) {
      // word = 16807 * word % 2147483647 without overflow (Schrage), as srandom_r computes it
      const std::int32_t hi = word / 127773;
      const std::int32_t lo = word % 127773;
      word = 16807 * lo - 2836 * hi;
      if (word < 0) {
        word += 2147483647;
      }
      words_[i] = static_cast<std::uint32_t>(word);
    }
    start();
  }
  void seed(std::seed_seq& seq) {
    seq.generate(words_.begin(), words_.end());
    words_[0] |= 1u;
    start();
  }

  result_type operator()() {
    words_[front_] += words_[rear_];
    const result_type draw = words_[front_] >> 1;
    front_ = front_ + 1 == k_words ? 0 : front_ + 1;
    rear_ = rear_ + 1 == k_words ? 0 : rear_ + 1;
    return draw;
  }

private:
  static constexpr std::size_t k_words = 31;
  static constexpr std::size_t k_separation = 3;

  void start() {
    front_ = k_separation;
    rear_ = 0;
    for (int i = 0; i < 10 * static_cast<int>(k_words); ++i) {
      (*this)();
    }
  }

  std::array<std::uint32_t, k_words> words_{};
  std::size_t front_ = k_separation;
  std::size_t rear_ = 0;
};

/// `private(random)` / `private(rand)`: libc's generator, one per worker, for the length of one
/// loop (rotor-cc declares one before the loop's run_loop call and rewrites the `random()` /
/// `rand()` calls of the body and of the helpers it calls into worker_random() / worker_rand()).
/// The documented seed sequence: when the loop starts, libc's generator is drawn once (d =
/// random(), or rand()); worker slot s of rank r then draws from a LibcStream (glibc's algorithm)
/// seeded with std::seed_seq{lo, 0, r, s}, where lo is the first draw of LibcStream(d) (that is,
/// of glibc's random() after srandom(d); WorkerCopies' re-seeding), each draw in [0, 2^31 - 1],
/// as glibc's random() and rand(). libc's own generator advances by that one draw per execution
/// of the loop.
class LibcPrivate {
public:
  enum Which { random_k, rand_k };
  explicit LibcPrivate(Which which)
      : which_(which), base_(first_draw(which)), copies_(base_, true),
        previous_(active(which).exchange(this)) {}
  ~LibcPrivate() { active(which_).store(previous_); }
  LibcPrivate(const LibcPrivate&) = delete;
  LibcPrivate& operator=(const LibcPrivate&) = delete;

  /// The calling worker's next draw.
  std::uint32_t draw() { return copies_.local()(); }

  /// The generator of the loop running now with private(random) (or rand), or nullptr.
  static std::atomic<LibcPrivate*>& active(Which which) {
    static std::atomic<LibcPrivate*> now[2] = {nullptr, nullptr};
    return now[which];
  }

private:
  static std::uint32_t first_draw(Which which) {
    return static_cast<std::uint32_t>(which == random_k ? ::random() : std::rand());
  }

  Which which_;
  LibcStream base_;
  WorkerCopies<LibcStream> copies_;
  LibcPrivate* previous_;
};

/// `random()` as rewritten by rotor-cc: the worker's generator inside a loop body of a
/// `private(random)` loop, libc's everywhere else.
inline long worker_random() {
  LibcPrivate* p = LibcPrivate::active(LibcPrivate::random_k).load(std::memory_order_acquire);
  if (p != nullptr && detail::current_worker_slot() >= 0) {
    return static_cast<long>(p->draw());
  }
  return ::random();
}

/// `rand()` as rewritten by rotor-cc (see worker_random).
inline int worker_rand() {
  LibcPrivate* p = LibcPrivate::active(LibcPrivate::rand_k).load(std::memory_order_acquire);
  if (p != nullptr && detail::current_worker_slot() >= 0) {
    return static_cast<int>(p->draw() % (static_cast<std::uint32_t>(RAND_MAX) + 1u));
  }
  return std::rand();
}

} // namespace rotor::codegen
