#pragma once
/// \file
/// The names rotor-cc emits for a device loop's body (docs/design/codegen-contract.md, "Device
/// loops"). nvcc does not allow generic (`auto&`) parameters in a `__host__ __device__` lambda,
/// so the body of a `device(gpu)` loop (and of every loop under `rotor-cc --device=gpu`) names
/// its parameter types through these aliases of the bound objects:
///
/// \code
///   [ROTOR_DEVICE_CAPTURE] ROTOR_DEVICE_LAMBDA (const Rating& r,
///       ::rotor::codegen::DeviceArray<decltype(W)> W, ::rotor::codegen::DeviceArray<decltype(H)>
///       H,
///       ::rotor::codegen::DeviceReduction<decltype(loss)>& loss) { ... }
/// \endcode
///
/// On the CPU the runtime passes the DistArrays (converted to ArrayRef), on a GPU ArrayRefs to
/// device memory (detail/CudaRunner.cuh). Under nvcc the capture is by value (a GPU cannot reach
/// the host stack) and the lambda `__host__ __device__`; for any other compiler the body is an
/// ordinary by-reference lambda, as for CPU loops (ROTOR_DEVICE_CAPTURE, ROTOR_DEVICE_LAMBDA in
/// rotor/distarray/HostDevice.h).

#include "rotor/distarray/ArrayRef.h"
#include "rotor/distarray/HostDevice.h"

#include <type_traits>

namespace rotor::codegen {

/// The ArrayRef a device body receives for a bound DistArray `A` (decltype of its name).
template <class A>
using DeviceArray = ArrayRef<typename std::remove_cv_t<std::remove_reference_t<A>>::value_type,
                             std::remove_cv_t<std::remove_reference_t<A>>::rank>;
/// The record type of a Dataset `S` (decltype of the range), for a loop variable declared `auto`.
template <class S>
using DeviceRecord = typename std::remove_cv_t<std::remove_reference_t<S>>::value_type;
/// The partial a device body adds to for a reduction variable `R` (decltype of its name).
template <class R> using DeviceReduction = std::remove_cv_t<std::remove_reference_t<R>>;

} // namespace rotor::codegen
