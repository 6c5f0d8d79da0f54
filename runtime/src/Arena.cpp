// The TBB calls of the engine, in one file compiled with -fno-sanitize=thread (Arena.h says why).

#include "Arena.h"

#include "SessionState.h"

#include <oneapi/tbb/parallel_for.h>

namespace rotor::detail {

void arena_run_bodies(std::size_t n, SlotBody body) {
  session_state().arena->execute([&] {
    oneapi::tbb::parallel_for(
        std::size_t{0}, n, std::size_t{1}, [&](std::size_t i) { body(i); },
        oneapi::tbb::simple_partitioner());
  });
}

void arena_enqueue(std::size_t n, SlotBody body) {
  for (std::size_t i = 0; i < n; ++i) {
    session_state().arena->enqueue([body, i] { body(i); });
  }
}

} // namespace rotor::detail
