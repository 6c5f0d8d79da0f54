// SGD-MF on one GPU: the wave kernel (conflict-free waves, equal to a serial order) and the
// Hogwild reference (races allowed), on generated Zipf-skewed ratings; plus device-to-device copy
// bandwidth. Prints one table row per (mode, epoch) and a closing summary line per mode.
//
//   bench_cuda_sgd [--users=N] [--items=N] [--ratings=N] [--k=N] [--epochs=N] [--lr=X]
//                  [--reg=X] [--skew=X] [--seed=N] [--mode=waves|hogwild|both] [--copy-mib=N]
//
// `bench_cuda_sgd --probe` prints the device (exit 0) or why there is none (exit 3).
// Without a GPU it prints "no GPU: skipped (...)" and exits 0.
#include "rotor/gpu/Kernels.h"
#include "rotor/gpu/SyntheticRatings.h"
#include "rotor/gpu/WaveSchedule.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
  }
}

struct Options {
  long long users = 20000, items = 10000, ratings = 1000000, k = 32, epochs = 5, seed = 1;
  long long copy_mib = 256;
  double lr = 0.02, reg = 0.05, skew = 0.5;
  std::string mode = "both";
};

[[noreturn]] void usage(const char* bad) {
  std::fprintf(stderr,
               "bench_cuda_sgd: bad argument '%s'\nflags: --users= --items= --ratings= --k= "
               "--epochs= --lr= --reg= --skew= --seed= --mode=waves|hogwild|both --copy-mib=\n",
               bad);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    const auto eq = s.find('=');
    if (s.rfind("--", 0) != 0 || eq == std::string::npos) {
      usage(argv[a]);
    }
    const std::string name = s.substr(2, eq - 2), v = s.substr(eq + 1);
    char* end = nullptr;
    auto integer = [&] {
      const long long x = std::strtoll(v.c_str(), &end, 10);
      if (*end != 0 || x < 0) {
        usage(argv[a]);
      }
      return x;
    };
    auto real = [&] {
      const double x = std::strtod(v.c_str(), &end);
      if (*end != 0) {
        usage(argv[a]);
      }
      return x;
    };
    if (name == "users")
      o.users = integer();
    else if (name == "items")
      o.items = integer();
    else if (name == "ratings")
      o.ratings = integer();
    else if (name == "k")
      o.k = integer();
    else if (name == "epochs")
      o.epochs = integer();
    else if (name == "seed")
      o.seed = integer();
    else if (name == "copy-mib")
      o.copy_mib = integer();
    else if (name == "lr")
      o.lr = real();
    else if (name == "reg")
      o.reg = real();
    else if (name == "skew")
      o.skew = real();
    else if (name == "mode" && (v == "waves" || v == "hogwild" || v == "both"))
      o.mode = v;
    else
      usage(argv[a]);
  }
  if (o.users < 1 || o.items < 1 || o.users > 2147483647LL || o.items > 2147483647LL || o.k < 1 ||
      o.ratings < 10) {
    usage("sizes");
  }
  return o;
}

template <class T> T* upload(const std::vector<T>& h) {
  T* d = nullptr;
  check(cudaMalloc(reinterpret_cast<void**>(&d), std::max<std::size_t>(h.size(), 1) * sizeof(T)),
        "cudaMalloc");
  check(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
  return d;
}

double rmse_of(const float* d_err2, std::size_t n) {
  std::vector<float> e(n);
  check(cudaMemcpy(e.data(), d_err2, n * sizeof(float), cudaMemcpyDeviceToHost), "download");
  double s = 0;
  for (float x : e) {
    s += x;
  }
  return std::sqrt(s / static_cast<double>(n));
}

double copy_bandwidth_gbs(long long mib) {
  if (mib == 0) {
    return 0;
  }
  const std::size_t bytes = static_cast<std::size_t>(mib) << 20;
  void *a = nullptr, *b = nullptr;
  check(cudaMalloc(&a, bytes), "cudaMalloc");
  check(cudaMalloc(&b, bytes), "cudaMalloc");
  check(cudaMemset(a, 1, bytes), "cudaMemset");
  check(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice), "warm-up copy");
  cudaEvent_t t0, t1;
  check(cudaEventCreate(&t0), "event");
  check(cudaEventCreate(&t1), "event");
  const int reps = 10;
  check(cudaEventRecord(t0), "record");
  for (int i = 0; i < reps; ++i) {
    check(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice), "copy");
  }
  check(cudaEventRecord(t1), "record");
  check(cudaEventSynchronize(t1), "sync");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, t0, t1), "elapsed");
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  cudaFree(a);
  cudaFree(b);
  // read + write: 2 * bytes move per copy
  return 2.0 * static_cast<double>(bytes) * reps / (ms * 1e-3) / 1e9;
}

int run(const Options& o) {
  using rotor::gpu::SgdDeviceProblem;
  std::printf("device: %s\n", rotor::gpu::device_description().c_str());
  const auto all = rotor::gpu::make_synthetic_ratings(
      static_cast<std::int32_t>(o.users), static_cast<std::int32_t>(o.items),
      static_cast<std::size_t>(o.ratings), o.skew, static_cast<std::uint64_t>(o.seed));
  // every 10th rating is the test set
  rotor::gpu::SyntheticRatings train, test;
  for (std::size_t r = 0; r < all.size(); ++r) {
    auto& to = r % 10 == 9 ? test : train;
    to.user.push_back(all.user[r]);
    to.item.push_back(all.item[r]);
    to.value.push_back(all.value[r]);
  }
  double sum = 0;
  for (float v : train.value) {
    sum += v;
  }
  const auto mean = static_cast<float>(sum / static_cast<double>(train.size()));
  const auto t0 = std::chrono::steady_clock::now();
  const auto waves = rotor::gpu::build_waves(train.user.data(), train.item.data(), train.size(),
                                             all.users, all.items);
  const double schedule_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("data: users=%lld items=%lld train=%zu test=%zu k=%lld skew=%.2f mean=%.4f\n",
              o.users, o.items, train.size(), test.size(), o.k, o.skew, mean);
  std::printf("schedule: waves=%d largest=%lld mean_wave=%.1f build_s=%.3f\n", waves.waves(),
              static_cast<long long>(waves.largest_wave()),
              static_cast<double>(train.size()) / std::max(1, waves.waves()), schedule_s);
  std::printf("d2d_copy: %lld MiB, %.1f GB/s (read+write)\n", o.copy_mib,
              copy_bandwidth_gbs(o.copy_mib));

  std::int32_t *du = upload(train.user), *di = upload(train.item), *tu = upload(test.user),
               *ti = upload(test.item);
  float *dv = upload(train.value), *tv = upload(test.value);
  std::int64_t* dorder = upload(waves.order);
  float *derr = upload(std::vector<float>(train.size())),
        *terr = upload(std::vector<float>(test.size()));
  std::mt19937 rng(static_cast<unsigned>(o.seed));
  std::normal_distribution<float> nd(0.f, 0.1f);
  std::vector<float> W0(static_cast<std::size_t>(o.users * o.k)),
      H0(static_cast<std::size_t>(o.items * o.k));
  for (float& x : W0)
    x = nd(rng);
  for (float& x : H0)
    x = nd(rng);

  std::printf("\n%-8s %5s %12s %10s %10s %10s\n", "mode", "epoch", "updates/s", "seconds",
              "train_rmse", "test_rmse");
  for (const char* mode : {"waves", "hogwild"}) {
    if (o.mode != "both" && o.mode != mode) {
      continue;
    }
    float *dW = upload(W0), *dH = upload(H0);
    SgdDeviceProblem p{du,
                       di,
                       dv,
                       static_cast<std::int64_t>(train.size()),
                       dW,
                       dH,
                       static_cast<int>(o.k),
                       mean,
                       static_cast<float>(o.lr),
                       static_cast<float>(o.reg)};
    SgdDeviceProblem t = p;
    t.user = tu;
    t.item = ti;
    t.value = tv;
    t.records = static_cast<std::int64_t>(test.size());
    double total_s = 0, test_rmse = 0;
    for (long long epoch = 1; epoch <= o.epochs; ++epoch) {
      cudaEvent_t e0, e1;
      check(cudaEventCreate(&e0), "event");
      check(cudaEventCreate(&e1), "event");
      check(cudaEventRecord(e0), "record");
      if (std::strcmp(mode, "waves") == 0) {
        rotor::gpu::sgd_waves(p, dorder, waves.wave_start, derr);
      } else {
        rotor::gpu::sgd_hogwild(p, derr);
      }
      check(cudaEventRecord(e1), "record");
      check(cudaEventSynchronize(e1), "sync");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, e0, e1), "elapsed");
      cudaEventDestroy(e0);
      cudaEventDestroy(e1);
      const double s = ms * 1e-3;
      total_s += s;
      const double train_rmse = rmse_of(derr, train.size()); // errors before each update
      rotor::gpu::sgd_errors(t, terr);
      rotor::gpu::synchronize();
      test_rmse = rmse_of(terr, test.size());
      std::printf("%-8s %5lld %12.4g %10.4f %10.4f %10.4f\n", mode, epoch,
                  static_cast<double>(train.size()) / s, s, train_rmse, test_rmse);
    }
    std::printf("final %s epochs=%lld updates_per_s=%.4g test_rmse=%.4f\n", mode, o.epochs,
                total_s > 0 ? static_cast<double>(train.size()) * o.epochs / total_s : 0.0,
                test_rmse);
    cudaFree(dW);
    cudaFree(dH);
  }
  for (void* ptr :
       {static_cast<void*>(du), static_cast<void*>(di), static_cast<void*>(tu),
        static_cast<void*>(ti), static_cast<void*>(dv), static_cast<void*>(tv),
        static_cast<void*>(dorder), static_cast<void*>(derr), static_cast<void*>(terr)}) {
    cudaFree(ptr);
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  std::string why;
  if (argc == 2 && std::strcmp(argv[1], "--probe") == 0) { // for run.sh: is there a device?
    if (rotor::gpu::device_count(&why) == 0) {
      std::printf("%s\n", why.c_str());
      return 3;
    }
    std::printf("%s\n", rotor::gpu::device_description().c_str());
    return 0;
  }
  const Options o = parse(argc, argv);
  if (rotor::gpu::device_count(&why) == 0) {
    std::printf("no GPU: skipped (%s)\n", why.c_str());
    return 0;
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cuda_sgd: %s\n", e.what());
    return 1;
  }
}
