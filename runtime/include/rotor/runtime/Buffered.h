#pragma once
/// \file
/// Buffered arrays (`#pragma rotor parallel_for buffered(w)`): every worker writes a private copy;
/// its changes (copy - the values it last saw) are merged into the array at each *flush*.
///
/// User API: `rotor::buffered_apply(w, fn)` replaces the default merge `value += delta` by
/// `fn(value, delta)` or `fn(value, delta, index)`, called once per changed element and flush with
/// the sum of every worker's change to it (docs/design/buffered.md).
///
/// Flush policy (flags, docs/design/buffered.md): at the loop's end (default),
/// `--rotor-flush-every=N` records per worker, `--rotor-staleness=s` (SSP: a worker may run at
/// most s flushes ahead of the slowest); `--rotor-buffered-exchange=auto|dense|sparse` picks how
/// ranks merge (allreduce of the whole array, or (index, value) pairs of the changed elements
/// pushed to the rank owning the index and pulled back).

#include "rotor/distarray/DistArray.h"
#include "rotor/distarray/detail/ElementType.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace rotor::detail {

/// A custom merge of one buffered array (buffered_apply / buffered_mean), looked up by the
/// array's address when a loop starts (runtime/src/BufferedFlush.h).
struct BufferedApplyEntry {
  ElementType element_type = ElementType::f32;
  const void* data = nullptr; ///< the array's data() when registered (a reused address is stale)
  std::int64_t size = 0;
  std::shared_ptr<void> fn; ///< std::function<void(T&, T, std::int64_t)>; null: mean
  bool mean = false;        ///< buffered_mean: value += delta / workers
  /// Registered for a plain container (keyed by its data(); rotor-cc binds a view of it whose
  /// size may leave out a shorter last row).
  bool container = false;
};
void register_buffered_apply(const void* array, BufferedApplyEntry entry);
void unregister_buffered_apply(const void* array);

} // namespace rotor::detail

namespace rotor::detail {

/// The registry entry of merge `fn(T& value, T delta[, std::int64_t index])` for `size`
/// elements at `data`.
template <class T, class Fn>
BufferedApplyEntry apply_entry(const void* data, std::int64_t size, Fn fn) {
  using Apply = std::function<void(T&, T, std::int64_t)>;
  BufferedApplyEntry e;
  e.element_type = element_type_of<T>();
  e.data = data;
  e.size = size;
  if constexpr (std::is_invocable_v<Fn&, T&, T, std::int64_t>) {
    e.fn = std::make_shared<Apply>(std::move(fn));
  } else {
    static_assert(std::is_invocable_v<Fn&, T&, T>,
                  "rotor::buffered_apply: fn must be callable as fn(T& value, T delta) or "
                  "fn(T& value, T delta, std::int64_t index)");
    e.fn = std::make_shared<Apply>(
        [f = std::move(fn)](T& value, T delta, std::int64_t) mutable { f(value, delta); });
  }
  return e;
}

/// The registry entry of the mean merge for `size` elements at `data`.
template <class T> BufferedApplyEntry mean_entry(const void* data, std::int64_t size) {
  static_assert(std::is_floating_point_v<T>, "rotor::buffered_mean: a float or double array");
  BufferedApplyEntry e;
  e.element_type = element_type_of<T>();
  e.data = data;
  e.size = size;
  e.mean = true;
  return e;
}

} // namespace rotor::detail

namespace rotor {

/// Replaces the merge of buffered array `array` (default: `value += delta`) by `fn`, which is
/// called at each flush once for every element some worker changed, with the sum of the
/// workers' changes (`delta`) and the element's linear index: `fn(T& value, T delta)` or
/// `fn(T& value, T delta, std::int64_t index)`. Call it before the loop, on every rank; it
/// stays until buffered_sum(array). Reads inside the loop still see the worker's copy with its
/// own raw changes until the next flush.
template <class T, int N, class Fn> void buffered_apply(DistArray<T, N>& array, Fn fn) {
  detail::register_buffered_apply(
      &array, detail::apply_entry<T>(array.data(), array.size(), std::move(fn)));
}

/// Merges `array` by the mean of the workers' changes (`value += delta / workers`, workers =
/// ranks x threads of the loop): model averaging for data-parallel SGD, where the sum would apply
/// every worker's step to the same weights. Floating-point arrays only.
template <class T, int N> void buffered_mean(DistArray<T, N>& array) {
  detail::register_buffered_apply(&array, detail::mean_entry<T>(array.data(), array.size()));
}

/// Back to the default merge (`value += delta`) for `array`.
template <class T, int N> void buffered_sum(DistArray<T, N>& array) {
  detail::unregister_buffered_apply(&array);
}

/// The same three for a plain container listed in buffered(...) (a std::vector or std::array;
/// rotor-cc, docs/design/containers.md "Buffered containers"). The merge is looked up by the
/// container's data() when a loop starts: call it once the container has its final size (a
/// reallocation leaves the default sum).
template <class C, class Fn>
auto buffered_apply(C& container, Fn fn) -> decltype(container.data(), container.size(), void()) {
  using T = std::remove_reference_t<decltype(*container.data())>;
  detail::BufferedApplyEntry e = detail::apply_entry<T>(
      container.data(), static_cast<std::int64_t>(container.size()), std::move(fn));
  e.container = true;
  detail::register_buffered_apply(container.data(), std::move(e));
}
template <class C>
auto buffered_mean(C& container) -> decltype(container.data(), container.size(), void()) {
  using T = std::remove_reference_t<decltype(*container.data())>;
  detail::BufferedApplyEntry e =
      detail::mean_entry<T>(container.data(), static_cast<std::int64_t>(container.size()));
  e.container = true;
  detail::register_buffered_apply(container.data(), std::move(e));
}
template <class C>
auto buffered_sum(C& container) -> decltype(container.data(), container.size(), void()) {
  detail::unregister_buffered_apply(container.data());
}

} // namespace rotor
