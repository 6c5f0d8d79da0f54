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
#ifndef ROTOR_HOST_DEVICE
#define ROTOR_HOST_DEVICE __host__ __device__
#endif
#elif !defined(ROTOR_HOST_DEVICE)
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

// ---- The lane-parallel form (the fast wave kernel, cuMF_SGD style) ----
//
// `lanes` threads share one rating: lane l owns the 4-float chunks c = l, l + lanes, ... of the
// rows (elements 4c .. 4c + 3; k % 4 == 0 so the device loads each chunk as one float4). Lane l
// sums its chunks' products left to right (sgd_lane_partial), the lanes' partials are combined by
// a butterfly (step o = lanes/2, ..., 1: every lane adds the partial of lane l ^ o; on the device
// a __shfl_xor_sync), every lane ends with the same dot, and each lane updates its own chunks
// (sgd_lane_apply) elementwise in sgd_update's formula. Only the dot's summation order differs
// from sgd_update; sgd_update_lanes replays the lanes on the host in exactly this order, so with
// --fmad=false the device is bitwise equal to it.

/// Threads per rating for rows of k floats: the smallest power of two >= k / 4, at most 32 (a
/// warp); 0 when k % 4 != 0 (the lane form needs whole float4 chunks).
ROTOR_HOST_DEVICE inline int sgd_lanes_for(int k) {
  if (k <= 0 || k % 4 != 0) {
    return 0;
  }
  int lanes = 1;
  while (lanes < k / 4 && lanes < 32) {
    lanes *= 2;
  }
  return lanes;
}

#if defined(__CUDA_ARCH__)
/// Chunk c of a row as one float4; Coherent: straight from L2 (ld.global.cg), for kernels whose
/// rows were written by other SMs since this SM last read them without a barrier in between.
template <bool Coherent> __device__ inline float4 sgd_load4(const float* row, int c) {
  if constexpr (Coherent) {
    return __ldcg(reinterpret_cast<const float4*>(row) + c);
  } else {
    return reinterpret_cast<const float4*>(row)[c];
  }
}
#endif

/// Lane `lane`'s part of w . h: its chunks' products summed left to right from 0.
template <bool Coherent = false>
ROTOR_HOST_DEVICE inline float sgd_lane_partial(const float* w, const float* h, int k, int lane,
                                                int lanes) {
  float partial = 0.f;
  for (int c = lane; c < k / 4; c += lanes) {
#if defined(__CUDA_ARCH__)
    const float4 a = sgd_load4<Coherent>(w, c);
    const float4 b = sgd_load4<Coherent>(h, c);
    partial += a.x * b.x;
    partial += a.y * b.y;
    partial += a.z * b.z;
    partial += a.w * b.w;
#else
    for (int j = 0; j < 4; ++j) {
      partial += w[4 * c + j] * h[4 * c + j];
    }
#endif
  }
  return partial;
}

/// Lane `lane`'s update of its chunks with the rating's error e (sgd_update's formula).
template <bool Coherent = false>
ROTOR_HOST_DEVICE inline void sgd_lane_apply(float* w, float* h, int k, int lane, int lanes,
                                             float e, float lr, float reg) {
  for (int c = lane; c < k / 4; c += lanes) {
#if defined(__CUDA_ARCH__)
    float4 a = sgd_load4<Coherent>(w, c);
    float4 b = sgd_load4<Coherent>(h, c);
    a.x += lr * (e * b.x - reg * a.x);
    a.y += lr * (e * b.y - reg * a.y);
    a.z += lr * (e * b.z - reg * a.z);
    a.w += lr * (e * b.w - reg * a.w);
    b.x += lr * (e * a.x - reg * b.x);
    b.y += lr * (e * a.y - reg * b.y);
    b.z += lr * (e * a.z - reg * b.z);
    b.w += lr * (e * a.w - reg * b.w);
    reinterpret_cast<float4*>(w)[c] = a;
    reinterpret_cast<float4*>(h)[c] = b;
#else
    for (int j = 0; j < 4; ++j) {
      w[4 * c + j] += lr * (e * h[4 * c + j] - reg * w[4 * c + j]);
    }
    for (int j = 0; j < 4; ++j) {
      h[4 * c + j] += lr * (e * w[4 * c + j] - reg * h[4 * c + j]);
    }
#endif
  }
}

/// The lane form of sgd_update replayed on the host in the device's arithmetic order (lanes =
/// sgd_lanes_for(k), which must be > 0). Returns e * e.
inline float sgd_update_lanes(float* w, float* h, int k, float rating, float mean, float lr,
                              float reg) {
  const int lanes = sgd_lanes_for(k);
  float partial[32] = {};
  for (int l = 0; l < lanes; ++l) {
    partial[l] = sgd_lane_partial(w, h, k, l, lanes);
  }
  for (int o = lanes / 2; o >= 1; o /= 2) { // butterfly: all lanes at once, as the shuffles
    float next[32] = {};
    for (int l = 0; l < lanes; ++l) {
      next[l] = partial[l] + partial[l ^ o];
    }
    for (int l = 0; l < lanes; ++l) {
      partial[l] = next[l];
    }
  }
  const float e = rating - mean - partial[0];
  for (int l = 0; l < lanes; ++l) {
    sgd_lane_apply(w, h, k, l, lanes, e, lr, reg);
  }
  return e * e;
}

} // namespace rotor::gpu
