#pragma once
/// \file
/// ROTOR_HOST_DEVICE: `__host__ __device__` when the translation unit is compiled by nvcc (a
/// `device(gpu)` loop, or `rotor-cc --device=gpu`), nothing for any other compiler. It marks the
/// functions a loop body may call on a GPU: rotor::ArrayRef's subscripts and rows (ArrayRef.h),
/// gpu/'s per-record SGD functions. ROTOR_DEVICE_LAMBDA marks the loop body rotor-cc emits for a
/// device loop (an extended `__host__ __device__` lambda, nvcc --extended-lambda), and
/// ROTOR_DEVICE_CAPTURE is its capture: by value under nvcc, by reference otherwise.

#if defined(__CUDACC__)
#ifndef ROTOR_HOST_DEVICE
#define ROTOR_HOST_DEVICE __host__ __device__
#endif
#define ROTOR_DEVICE_LAMBDA __host__ __device__
#define ROTOR_DEVICE_CAPTURE =
#else
#ifndef ROTOR_HOST_DEVICE
#define ROTOR_HOST_DEVICE
#endif
#define ROTOR_DEVICE_LAMBDA
#define ROTOR_DEVICE_CAPTURE &
#endif
