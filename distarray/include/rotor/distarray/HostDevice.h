#pragma once
/// \file
/// ROTOR_HOST_DEVICE: `__host__ __device__` when the translation unit is compiled by nvcc (a
/// `device(gpu)` loop, or `rotor-cc --device=gpu`), nothing for any other compiler. It marks the
/// functions a loop body may call on a GPU: rotor::ArrayRef's subscripts and rows (ArrayRef.h),
/// gpu/'s per-record SGD functions. ROTOR_DEVICE_LAMBDA marks the loop body rotor-cc emits for a
/// device loop (an extended `__host__ __device__` lambda, nvcc --extended-lambda).

#if defined(__CUDACC__)
#ifndef ROTOR_HOST_DEVICE
#define ROTOR_HOST_DEVICE __host__ __device__
#endif
#define ROTOR_DEVICE_LAMBDA __host__ __device__
#else
#ifndef ROTOR_HOST_DEVICE
#define ROTOR_HOST_DEVICE
#endif
#define ROTOR_DEVICE_LAMBDA
#endif
