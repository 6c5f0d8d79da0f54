#pragma once
/// \file
/// The per-record work of SGD matrix factorization (examples/sgd_mf's loop body), as a function
/// compiled by both the host compiler and nvcc. One call applies one rating to its user row `w`
/// and item row `h` (both of length `k`), in the same formula as the example:
///
///   e  = rating - mean - w . h
///   w += lr * (e * h - reg * w)
///   h += lr * (e * w - reg * h)      (with the updated w)
///
/// and returns e * e. The dot product is summed left to right, one element at a time, so the host
/// and the device give bitwise-equal results when nvcc does not contract multiply-adds (the CUDA
/// targets are compiled with --fmad=false). Eigen's vectorised dot in examples/sgd_mf sums in
/// another order: equal formula, not bitwise-equal numbers.

#if defined(__CUDACC__)
#define ROTOR_HOST_DEVICE __host__ __device__
#else
#define ROTOR_HOST_DEVICE
#endif

namespace rotor::gpu {

/// w . h, summed left to right.
ROTOR_HOST_DEVICE inline float sgd_dot(const float* w, const float* h, int k) {
  float dot = 0.f;
  for (int i = 0; i < k; ++i) {
    dot += w[i] * h[i];
  }
  return dot;
}

/// Squared error of one rating without updating anything (test RMSE).
ROTOR_HOST_DEVICE inline float sgd_error2(const float* w, const float* h, int k, float rating,
                                          float mean) {
  const float e = rating - mean - sgd_dot(w, h, k);
  return e * e;
}

/// One SGD step on (w, h) for one rating; returns the squared error before the step.
ROTOR_HOST_DEVICE inline float sgd_update(float* w, float* h, int k, float rating, float mean,
                                          float lr, float reg) {
  const float e = rating - mean - sgd_dot(w, h, k);
  for (int i = 0; i < k; ++i) {
    w[i] += lr * (e * h[i] - reg * w[i]);
  }
  for (int i = 0; i < k; ++i) {
    h[i] += lr * (e * w[i] - reg * h[i]);
  }
  return e * e;
}

} // namespace rotor::gpu
