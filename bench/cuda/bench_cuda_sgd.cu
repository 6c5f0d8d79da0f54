// SGD-MF on one GPU, on generated Zipf-skewed ratings, per k:
//   waves     one launch per wave, one thread per record (the first wave kernel, whole set)
//   rotation  the persistent lane kernel (k/4 lanes per rating, float4 rows, one launch per
//             block) over the whole set as one block (the fewest waves), in device memory
//   dataflow  the same order and lane arithmetic without wave barriers: each record waits for
//             its keys' predecessors (per-key counters); bitwise equal to rotation (checked)
//   blocked   the same kernel over B x B blocks in the single-GPU rotation order, in memory
//   streamed  the blocked order and kernel under a device memory limit (memory plan, two
//             streams); bitwise equal to blocked (checked)
//   hogwild   the lane kernel over all records at once, races allowed (cuMF_SGD style)
// plus device-to-device copy bandwidth. Prints one row per (k, mode, epoch) and a `final` line per
// (k, mode).
//
//   bench_cuda_sgd [--users=N] [--items=N] [--ratings=N] [--k=N[,N...]] [--epochs=N] [--lr=X]
//                  [--reg=X] [--skew=X] [--seed=N] [--blocks=B] [--target-rmse=X (default:
//                  Hogwild's final test RMSE at that k)]
//                  [--rotor-gpu-memory=BYTES]
//                  [--mode=all|waves|rotation|dataflow|blocked|streamed|hogwild|schedule]
//                  [--copy-mib=N]
//
// --mode=schedule needs no GPU: it prints the host side only (waves, the lane kernel's head/tail
// split per k, the streamed run's memory plan). --rotor-gpu-memory defaults to half of what the
// streamed run's blocks need. The streamed run's time counts all its copies (first upload to last
// write-back); the other modes time the kernels with the data already on the device.
// `bench_cuda_sgd --probe` prints the device (exit 0) or why there is none (exit 3). Without a GPU
// it prints "no GPU: skipped (...)" and exits 0.
#include "rotor/gpu/BlockedRatings.h"
#include "rotor/gpu/Kernels.h"
#include "rotor/gpu/StreamedRotation.h"
#include "rotor/gpu/SyntheticRatings.h"
#include "rotor/gpu/WaveSchedule.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
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
  long long users = 20000, items = 10000, ratings = 1000000, epochs = 5, seed = 1;
  std::vector<int> ks = {32};
  long long copy_mib = 256, blocks = 4, gpu_memory = 0;
  double lr = 0.02, reg = 0.05, skew = 0.5, target_rmse = 0;
  std::string mode = "all";
  bool wants(const char* m) const { return mode == "all" || mode == m; }
  bool schedule_only() const { return mode == "schedule"; }
};

[[noreturn]] void usage(const char* bad) {
  std::fprintf(stderr,
               "bench_cuda_sgd: bad argument '%s'\nflags: --users= --items= --ratings= --k=N[,N] "
               "--epochs= --lr= --reg= --skew= --seed= --blocks= --target-rmse= "
               "--rotor-gpu-memory=BYTES "
               "--mode=all|waves|rotation|dataflow|blocked|streamed|hogwild|schedule "
               "--copy-mib=\n",
               bad);
  std::exit(2);
}

/// "32,128": each a positive multiple of 4 (the lane kernels' float4 rows).
std::vector<int> k_list(const std::string& v, const char* arg) {
  std::vector<int> ks;
  std::size_t at = 0;
  while (at <= v.size()) {
    const std::size_t comma = std::min(v.find(',', at), v.size());
    const std::string one = v.substr(at, comma - at);
    char* end = nullptr;
    const long k = std::strtol(one.c_str(), &end, 10);
    if (one.empty() || *end != 0 || k < 4 || k > 1024 || k % 4 != 0) {
      usage(arg);
    }
    ks.push_back(static_cast<int>(k));
    at = comma + 1;
  }
  return ks;
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
      o.ks = k_list(v, argv[a]);
    else if (name == "blocks")
      o.blocks = integer();
    else if (name == "rotor-gpu-memory")
      o.gpu_memory = integer();
    else if (name == "target-rmse")
      o.target_rmse = real();
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
    else if (name == "mode" &&
             (v == "all" || v == "waves" || v == "rotation" || v == "dataflow" || v == "blocked" ||
              v == "streamed" || v == "hogwild" || v == "schedule"))
      o.mode = v;
    else
      usage(argv[a]);
  }
  if (o.users < 1 || o.items < 1 || o.users > 2147483647LL || o.items > 2147483647LL ||
      o.ratings < 10 || o.blocks < 1 || o.blocks > 64) {
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

template <class T> struct DeviceArray {
  T* ptr = nullptr;
  explicit DeviceArray(const std::vector<T>& h) : ptr(upload(h)) {}
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { cudaFree(ptr); }
  std::vector<T> download(std::size_t n) const {
    std::vector<T> h(n);
    check(cudaMemcpy(h.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
    return h;
  }
};

/// The generated data, split 9:1 into train and test, with both schedules.
struct Data {
  rotor::gpu::SyntheticRatings train, test;
  float mean = 0;
  rotor::gpu::Waves waves;            ///< the whole train set as one block (mode waves)
  rotor::gpu::BlockedRatings whole;   ///< one block in wave order (rotation)
  rotor::gpu::BlockedRatings blocked; ///< B x B blocks in wave order (blocked, streamed)
};

Data make_data(const Options& o) {
  const auto all = rotor::gpu::make_synthetic_ratings(
      static_cast<std::int32_t>(o.users), static_cast<std::int32_t>(o.items),
      static_cast<std::size_t>(o.ratings), o.skew, static_cast<std::uint64_t>(o.seed));
  Data d;
  for (std::size_t r = 0; r < all.size(); ++r) { // every 10th rating is the test set
    auto& to = r % 10 == 9 ? d.test : d.train;
    to.user.push_back(all.user[r]);
    to.item.push_back(all.item[r]);
    to.value.push_back(all.value[r]);
  }
  d.train.users = d.test.users = all.users;
  d.train.items = d.test.items = all.items;
  double sum = 0;
  for (float v : d.train.value) {
    sum += v;
  }
  d.mean = static_cast<float>(sum / static_cast<double>(d.train.size()));
  const auto t0 = std::chrono::steady_clock::now();
  d.waves = rotor::gpu::build_waves(d.train.user.data(), d.train.item.data(), d.train.size(),
                                    all.users, all.items);
  const auto t1 = std::chrono::steady_clock::now();
  d.blocked =
      rotor::gpu::block_ratings(d.train.user.data(), d.train.item.data(), d.train.value.data(),
                                d.train.size(), all.users, all.items, static_cast<int>(o.blocks));
  d.whole =
      rotor::gpu::block_ratings(d.train.user.data(), d.train.item.data(), d.train.value.data(),
                                d.train.size(), all.users, all.items, 1);
  const auto t2 = std::chrono::steady_clock::now();
  std::size_t block_waves = 0;
  for (const auto& ws : d.blocked.wave_start) {
    block_waves += ws.size() - 1;
  }
  std::printf("data: users=%lld items=%lld train=%zu test=%zu skew=%.2f mean=%.4f\n", o.users,
              o.items, d.train.size(), d.test.size(), o.skew, d.mean);
  std::printf("schedule: waves=%d largest=%lld mean_wave=%.1f build_s=%.3f; blocks=%lldx%lld "
              "block_waves=%zu build_s=%.3f\n",
              d.waves.waves(), static_cast<long long>(d.waves.largest_wave()),
              static_cast<double>(d.train.size()) / std::max(1, d.waves.waves()),
              std::chrono::duration<double>(t1 - t0).count(), o.blocks, o.blocks, block_waves,
              std::chrono::duration<double>(t2 - t1).count());
  return d;
}

struct ModeResult {
  double updates_per_s = 0, test_rmse = 0;
  std::vector<std::pair<double, double>> history; ///< (seconds so far, test RMSE) per epoch
};

/// Seconds until the test RMSE first fell below `target` (-1: never).
double time_to(const ModeResult& r, double target) {
  for (const auto& [seconds, rmse] : r.history) {
    if (rmse <= target) {
      return seconds;
    }
  }
  return -1;
}

/// The `final` line; `target` <= 0: no time-to-target.
void print_final(int k, const char* mode, const Options& o, const ModeResult& r, double target,
                 const std::string& extra) {
  char reached[96] = "";
  if (target > 0) {
    const double t = time_to(r, target);
    if (t >= 0) {
      std::snprintf(reached, sizeof reached, " target_rmse=%.4f time_to_target_s=%.4f", target, t);
    } else {
      std::snprintf(reached, sizeof reached, " target_rmse=%.4f time_to_target_s=not_reached",
                    target);
    }
  }
  std::printf("final k=%d %s epochs=%lld updates_per_s=%.4g test_rmse=%.4f%s%s\n", k, mode,
              o.epochs, r.updates_per_s, r.test_rmse, reached, extra.c_str());
}

/// Device copies of the train and test sets and the per-record error arrays.
struct DeviceData {
  DeviceArray<std::int32_t> user, item, test_user, test_item;
  DeviceArray<float> value, test_value, err, test_err;
  DeviceArray<std::int64_t> order;
  explicit DeviceData(const Data& d)
      : user(d.train.user), item(d.train.item), test_user(d.test.user), test_item(d.test.item),
        value(d.train.value), test_value(d.test.value), err(std::vector<float>(d.train.size())),
        test_err(std::vector<float>(d.test.size())), order(d.waves.order) {}
};

double test_rmse(const Data& d, DeviceData& dd, float* dW, float* dH, int k) {
  rotor::gpu::SgdDeviceProblem t{dd.test_user.ptr,
                                 dd.test_item.ptr,
                                 dd.test_value.ptr,
                                 static_cast<std::int64_t>(d.test.size()),
                                 dW,
                                 dH,
                                 k,
                                 d.mean};
  rotor::gpu::sgd_errors(t, dd.test_err.ptr);
  rotor::gpu::synchronize();
  return rmse_of(dd.test_err.ptr, d.test.size());
}

/// `epochs` epochs of `epoch` (one epoch on the device's W and H, errors into err), each timed
/// with events; prints one row per epoch.
ModeResult run_epochs(const char* mode, int k, const Options& o, const Data& d, DeviceData& dd,
                      float* dW, float* dH, const std::function<void(float* err)>& epoch) {
  ModeResult result;
  double total_s = 0;
  for (long long e = 1; e <= o.epochs; ++e) {
    cudaEvent_t e0, e1;
    check(cudaEventCreate(&e0), "event");
    check(cudaEventCreate(&e1), "event");
    check(cudaEventRecord(e0), "record");
    epoch(dd.err.ptr);
    check(cudaEventRecord(e1), "record");
    check(cudaEventSynchronize(e1), "sync");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, e0, e1), "elapsed");
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    total_s += ms * 1e-3;
    const double train_rmse = rmse_of(dd.err.ptr, d.train.size()); // errors before each update
    result.test_rmse = test_rmse(d, dd, dW, dH, k);
    result.history.emplace_back(total_s, result.test_rmse);
    std::printf("k=%-4d %-9s %5lld %12.4g %10.4f %10.4f %10.4f\n", k, mode, e,
                static_cast<double>(d.train.size()) / (ms * 1e-3), ms * 1e-3, train_rmse,
                result.test_rmse);
  }
  result.updates_per_s = total_s > 0 ? static_cast<double>(d.train.size()) * o.epochs / total_s : 0;
  return result;
}

std::vector<float> initial_rows(long long rows, int k, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.f, 0.1f);
  std::vector<float> v(static_cast<std::size_t>(rows) * k);
  for (float& x : v) {
    x = nd(rng);
  }
  return v;
}

/// The default --rotor-gpu-memory: half of what the blocked run's blocks need.
std::uint64_t need_bytes(const rotor::gpu::BlockBytes& bytes) {
  std::uint64_t need = 0;
  for (const auto* v : {&bytes.records, &bytes.user_rows, &bytes.item_rows}) {
    for (auto b : *v) {
      need += b;
    }
  }
  return need;
}

/// The streamed run from W0, H0 over all epochs at once; compared with the in-memory run of the
/// same order (blocked).
void run_streamed(int k, const Options& o, const Data& d, DeviceData& dd,
                  const std::vector<float>& W0, const std::vector<float>& H0,
                  const std::vector<float>& blocked_W, const std::vector<float>& blocked_H,
                  double blocked_updates_per_s) {
  const auto bytes = rotor::gpu::block_bytes(d.blocked, k);
  const std::uint64_t need = need_bytes(bytes);
  const std::uint64_t limit =
      o.gpu_memory > 0 ? static_cast<std::uint64_t>(o.gpu_memory) : need / 2;
  std::vector<float> W = W0, H = H0;
  const auto order =
      rotor::gpu::single_gpu_rotation_order(static_cast<int>(o.blocks), static_cast<int>(o.epochs));
  const rotor::gpu::StreamedRun run =
      rotor::gpu::run_streamed_rotation(d.blocked, W, H, k, d.mean, static_cast<float>(o.lr),
                                        static_cast<float>(o.reg), order, limit);
  DeviceArray<float> dW(W), dH(H);
  ModeResult r;
  r.updates_per_s = static_cast<double>(d.train.size()) * o.epochs / run.seconds;
  r.test_rmse = test_rmse(d, dd, dW.ptr, dH.ptr, k);
  r.history.emplace_back(run.seconds, r.test_rmse);
  const bool equal = std::memcmp(W.data(), blocked_W.data(), W.size() * 4) == 0 &&
                     std::memcmp(H.data(), blocked_H.data(), H.size() * 4) == 0;
  char extra[400];
  std::snprintf(extra, sizeof extra,
                " limit=%llu need=%llu device_bytes=%llu slots=%d/%d/%d uploaded_mib=%.1f "
                "downloaded_mib=%.1f vs_blocked=%.3f bitwise_equal_to_blocked=%s",
                static_cast<unsigned long long>(limit), static_cast<unsigned long long>(need),
                static_cast<unsigned long long>(run.plan.device_bytes), run.plan.slots[0],
                run.plan.slots[1], run.plan.slots[2], run.plan.uploaded_bytes / 1048576.0,
                run.plan.downloaded_bytes / 1048576.0, r.updates_per_s / blocked_updates_per_s,
                equal ? "yes" : "NO");
  std::printf("k=%-4d %-9s %5s %12.4g %10.4f %10s %10.4f\n", k, "streamed", "all", r.updates_per_s,
              run.seconds, "-", r.test_rmse);
  print_final(k, "streamed", o, r, 0, extra);
  if (!equal) {
    throw std::runtime_error("streamed run differs from the in-memory run of its order (blocked)");
  }
}

/// A resident lane-kernel run over `r` (B x B blocks in the single-GPU rotation order), W and H
/// left in `W_out`, `H_out`.
ModeResult run_resident(const char* mode, int k, const Options& o, const Data& d, DeviceData& dd,
                        const rotor::gpu::BlockedRatings& r, const std::vector<float>& W0,
                        const std::vector<float>& H0, std::vector<float>& W_out,
                        std::vector<float>& H_out) {
  DeviceArray<float> dW(W0), dH(H0);
  const rotor::gpu::ResidentRotation resident(r, k);
  const auto epoch = rotor::gpu::single_gpu_rotation_order(r.blocks, 1);
  const float lr = static_cast<float>(o.lr), reg = static_cast<float>(o.reg);
  const ModeResult result = run_epochs(mode, k, o, d, dd, dW.ptr, dH.ptr, [&](float* err) {
    resident.run(epoch, dW.ptr, dH.ptr, d.mean, lr, reg, err);
  });
  W_out = dW.download(W0.size());
  H_out = dH.download(H0.size());
  return result;
}

/// The dataflow kernel over `r`'s positions (one block: the whole set in wave order).
ModeResult run_dataflow(int k, const Options& o, const Data& d, DeviceData& dd,
                        const rotor::gpu::BlockedRatings& r, const std::vector<float>& W0,
                        const std::vector<float>& H0, std::vector<float>& W_out,
                        std::vector<float>& H_out) {
  DeviceArray<std::int32_t> user(r.user), item(r.item),
      user_seq(rotor::gpu::key_sequence(r.user, r.users)),
      item_seq(rotor::gpu::key_sequence(r.item, r.items)),
      user_done(std::vector<std::int32_t>(static_cast<std::size_t>(r.users))),
      item_done(std::vector<std::int32_t>(static_cast<std::size_t>(r.items))),
      stalled(std::vector<std::int32_t>(1));
  DeviceArray<float> value(r.value), dW(W0), dH(H0);
  rotor::gpu::SgdDataflow f;
  f.user = user.ptr;
  f.item = item.ptr;
  f.value = value.ptr;
  f.user_seq = user_seq.ptr;
  f.item_seq = item_seq.ptr;
  f.records = static_cast<std::int64_t>(r.user.size());
  f.user_done = user_done.ptr;
  f.item_done = item_done.ptr;
  f.users = r.users;
  f.items = r.items;
  f.stalled = stalled.ptr;
  f.W = dW.ptr;
  f.H = dH.ptr;
  f.k = k;
  f.mean = d.mean;
  f.lr = static_cast<float>(o.lr);
  f.reg = static_cast<float>(o.reg);
  const ModeResult result = run_epochs("dataflow", k, o, d, dd, dW.ptr, dH.ptr, [&](float* err) {
    f.err2 = err;
    rotor::gpu::sgd_dataflow(f);
  });
  W_out = dW.download(W0.size());
  H_out = dH.download(H0.size());
  return result;
}

/// " head_waves=.. tail_waves=..": where the lane kernel's time goes (grid-wide or one block).
std::string launch_split(const rotor::gpu::BlockedRatings& r, int k) {
  long long head = 0, tail = 0;
  for (const auto& ws : r.wave_start) {
    const auto l = rotor::gpu::wave_launch(ws, k);
    head += l.tail_start;
    tail += l.waves - l.tail_start;
  }
  return " head_waves=" + std::to_string(head) + " tail_waves=" + std::to_string(tail);
}

std::string ratio(const char* name, double a, double b) {
  return b > 0 && a > 0 ? " " + std::string(name) + "=" + std::to_string(a / b) : "";
}

/// Every mode for rows of k floats.
void run_k(int k, const Options& o, const Data& d, DeviceData& dd) {
  const auto W0 = initial_rows(o.users, k, static_cast<unsigned>(o.seed));
  const auto H0 = initial_rows(o.items, k, static_cast<unsigned>(o.seed) + 1);
  rotor::gpu::SgdDeviceProblem p{dd.user.ptr,
                                 dd.item.ptr,
                                 dd.value.ptr,
                                 static_cast<std::int64_t>(d.train.size()),
                                 nullptr,
                                 nullptr,
                                 k,
                                 d.mean,
                                 static_cast<float>(o.lr),
                                 static_cast<float>(o.reg)};
  std::vector<float> W, H, blocked_W, blocked_H;
  ModeResult rotation, blocked, hogwild;
  double target = o.target_rmse; // 0: Hogwild's final test RMSE once it has run
  if (o.wants("hogwild")) {
    DeviceArray<float> dW(W0), dH(H0);
    p.W = dW.ptr;
    p.H = dH.ptr;
    hogwild = run_epochs("hogwild", k, o, d, dd, dW.ptr, dH.ptr,
                         [&](float* err) { rotor::gpu::sgd_hogwild_lanes(p, err); });
    target = target > 0 ? target : hogwild.test_rmse;
    print_final(k, "hogwild", o, hogwild, target, "");
  }
  if (o.wants("rotation")) { // one block: the fewest waves
    rotation = run_resident("rotation", k, o, d, dd, d.whole, W0, H0, W, H);
    print_final(k, "rotation", o, rotation, target,
                launch_split(d.whole, k) +
                    ratio("vs_hogwild", rotation.updates_per_s, hogwild.updates_per_s));
  }
  if (o.wants("dataflow")) {
    std::vector<float> fW, fH;
    const ModeResult dataflow = run_dataflow(k, o, d, dd, d.whole, W0, H0, fW, fH);
    std::string extra = ratio("vs_hogwild", dataflow.updates_per_s, hogwild.updates_per_s) +
                        ratio("vs_rotation", dataflow.updates_per_s, rotation.updates_per_s);
    if (!W.empty()) {
      const bool equal = std::memcmp(fW.data(), W.data(), W.size() * 4) == 0 &&
                         std::memcmp(fH.data(), H.data(), H.size() * 4) == 0;
      extra += std::string(" bitwise_equal_to_rotation=") + (equal ? "yes" : "NO");
    }
    print_final(k, "dataflow", o, dataflow, target, extra);
  }
  if (o.wants("blocked") || o.wants("streamed")) { // the streamed run's order, in memory
    blocked = run_resident("blocked", k, o, d, dd, d.blocked, W0, H0, blocked_W, blocked_H);
    print_final(k, "blocked", o, blocked, target,
                launch_split(d.blocked, k) +
                    ratio("vs_rotation", blocked.updates_per_s, rotation.updates_per_s));
  }
  if (o.wants("streamed")) {
    run_streamed(k, o, d, dd, W0, H0, blocked_W, blocked_H, blocked.updates_per_s);
  }
  if (o.wants("waves")) {
    DeviceArray<float> dW(W0), dH(H0);
    p.W = dW.ptr;
    p.H = dH.ptr;
    const auto r = run_epochs("waves", k, o, d, dd, dW.ptr, dH.ptr, [&](float* err) {
      rotor::gpu::sgd_waves(p, dd.order.ptr, d.waves.wave_start, err);
    });
    print_final(k, "waves", o, r, target, "");
  }
}

int run_all(const Options& o) {
  std::printf("device: %s\n", rotor::gpu::device_description().c_str());
  const Data d = make_data(o);
  std::printf("d2d_copy: %lld MiB, %.1f GB/s (read+write)\n", o.copy_mib,
              copy_bandwidth_gbs(o.copy_mib));
  DeviceData dd(d);
  std::printf("\n%-6s %-9s %5s %12s %10s %10s %10s\n", "k", "mode", "epoch", "updates/s", "seconds",
              "train_rmse", "test_rmse");
  for (int k : o.ks) {
    run_k(k, o, d, dd);
  }
  return 0;
}
} // namespace

/// --mode=schedule: the host side of every mode, no device.
int run_schedule(const Options& o) {
  const Data d = make_data(o);
  const auto order =
      rotor::gpu::single_gpu_rotation_order(static_cast<int>(o.blocks), static_cast<int>(o.epochs));
  for (int k : o.ks) {
    const auto bytes = rotor::gpu::block_bytes(d.blocked, k);
    const std::uint64_t need = need_bytes(bytes);
    const std::uint64_t limit =
        o.gpu_memory > 0 ? static_cast<std::uint64_t>(o.gpu_memory) : need / 2;
    const auto plan = rotor::gpu::plan_memory(order, bytes, limit);
    const std::string problem = rotor::gpu::check_memory_plan(plan, order, bytes, limit);
    if (!problem.empty()) {
      throw std::runtime_error("memory plan for k=" + std::to_string(k) + ": " + problem);
    }
    std::printf("k=%d rotation:%s\nk=%d blocked:%s\n", k, launch_split(d.whole, k).c_str(), k,
                launch_split(d.blocked, k).c_str());
    std::printf("k=%d streamed: limit=%llu need=%llu device_bytes=%llu slots=%d/%d/%d "
                "uploaded_mib=%.1f downloaded_mib=%.1f plan_check=ok\n",
                k, static_cast<unsigned long long>(limit), static_cast<unsigned long long>(need),
                static_cast<unsigned long long>(plan.device_bytes), plan.slots[0], plan.slots[1],
                plan.slots[2], plan.uploaded_bytes / 1048576.0, plan.downloaded_bytes / 1048576.0);
  }
  return 0;
}

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
  if (o.schedule_only()) {
    try {
      return run_schedule(o);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_cuda_sgd: %s\n", e.what());
      return 1;
    }
  }
  if (rotor::gpu::device_count(&why) == 0) {
    std::printf("no GPU: skipped (%s)\n", why.c_str());
    return 0;
  }
  try {
    return run_all(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cuda_sgd: %s\n", e.what());
    return 1;
  }
}
