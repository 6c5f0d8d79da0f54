#pragma once
/// \file
/// The HDF5 in-memory type of an element type, shared by distarray's HDF5 I/O and the runtime's
/// checkpoints (both link rotor_hdf5). Returns an `hid_t` (a 64-bit integer in HDF5 1.10 and
/// newer) without including hdf5.h, so that this header stays free of HDF5. Not for user code.

#include "rotor/distarray/detail/ElementType.h"

#include <cstdint>

namespace rotor::detail {

/// H5T_NATIVE_FLOAT, H5T_NATIVE_INT64, ... for `t`.
std::int64_t hdf5_memory_type(ElementType t);

} // namespace rotor::detail
