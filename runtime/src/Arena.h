#pragma once
/// \file
/// The engine's one door to TBB: run slot bodies on the session's arena. Arena.cpp is compiled
/// without ThreadSanitizer, like the prebuilt libtbb it calls into, so TBB's scheduler code is
/// invisible to TSan in both; the hand-off it gives (what the caller did before happens before
/// every body, every body before the caller's next step) is stated to TSan by tsan_release /
/// tsan_acquire around the bodies, which are compiled and checked as usual (StepLoop.cpp,
/// WorkerSlots.h). docs/user/sanitizers.md says why.

#include <cstddef>

#if defined(__SANITIZE_THREAD__)
#define ROTOR_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ROTOR_TSAN 1
#endif
#endif
#ifdef ROTOR_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace rotor::detail {

/// Everything this thread did so far happens before a later tsan_acquire(sync) on any thread
/// (for ThreadSanitizer only; nothing otherwise).
inline void tsan_release([[maybe_unused]] const void* sync) {
#ifdef ROTOR_TSAN
  __tsan_release(const_cast<void*>(sync));
#endif
}

/// Everything before an earlier tsan_release(sync) happens before what this thread does next.
inline void tsan_acquire([[maybe_unused]] const void* sync) {
#ifdef ROTOR_TSAN
  __tsan_acquire(const_cast<void*>(sync));
#endif
}

/// A callable by reference, `body(i)`; the callable must outlive every call. What the thread that
/// makes the SlotBody did before happens before every call (stated to ThreadSanitizer here: a
/// call acquires on the callable's address before it reads the callable).
class SlotBody {
public:
  template <class F>
  explicit SlotBody(const F& f)
      : call_([](const void* f, std::size_t i) {
          tsan_acquire(f);
          (*static_cast<const F*>(f))(i);
        }),
        f_(&f) {
    tsan_release(&f);
  }
  void operator()(std::size_t i) const { call_(f_, i); }

private:
  void (*call_)(const void*, std::size_t);
  const void* f_;
};

/// Calls `op(sync)` when it goes out of scope, also while an exception unwinds it.
struct TsanAtExit {
  void (*op)(const void*);
  const void* sync;
  ~TsanAtExit() { op(sync); }
};

/// arena_run's TBB call (Arena.cpp); the join is stated by arena_run.
void arena_run_bodies(std::size_t n, SlotBody body);

/// Runs body(i) for every i in [0, n) concurrently on the session's arena (the calling thread
/// joins in) and returns when all are done; an exception from a body is rethrown here. Every
/// body happens before the caller's next step, stated to ThreadSanitizer here (each body
/// releases a join token when it ends, also by an exception; the caller acquires it on return,
/// also when a body's exception comes back).
template <class F> void arena_run(std::size_t n, const F& body) {
  const char join = 0;
  const TsanAtExit joined{tsan_acquire, &join};
  const auto released = [&](std::size_t i) {
    const TsanAtExit ended{tsan_release, &join};
    body(i);
  };
  arena_run_bodies(n, SlotBody(released));
}

/// Starts body(i) for every i in [0, n) on the arena's worker threads and returns at once; the
/// caller waits for them itself (and so must catch the bodies' exceptions inside them).
void arena_enqueue(std::size_t n, SlotBody body);

} // namespace rotor::detail
