// Matrix factorisation by SGD written as plain serial C++: the ratings are a
// std::vector<Rating>, the factors two std::vector<float> tables indexed `row * k + j`. The only
// Rotor in this file is the pragma on each loop; it includes nothing from Rotor, so a copy of
// this one file builds anywhere (docs/user/tutorial.md starts from it).
//
//   g++ -O2 -std=c++17 mf_plain.cpp -o mf_plain_serial     # the pragmas are ignored
//   rotor-cc -O2 mf_plain.cpp -o mf_plain                   # the same program, in parallel
//   mf_plain TRAIN.csv TEST.csv [k] [epochs]                # CSV lines: user,item,rating

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

struct Rating {
  std::int32_t user;
  std::int32_t item;
  float value;
};

/// The ratings of a `user,item,rating` file (further columns are ignored); throws naming the file,
/// the line and the value when a line is not that.
std::vector<Rating> read_ratings(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error(path + ": cannot open");
  }
  std::vector<Rating> ratings;
  std::string line;
  for (long number = 1; std::getline(in, line); ++number) {
    std::istringstream fields(line);
    long long user = -1, item = -1;
    double value = 0;
    char comma1 = 0, comma2 = 0;
    if (!(fields >> user >> comma1 >> item >> comma2 >> value) || comma1 != ',' || comma2 != ',' ||
        user < 0 || item < 0 || user > INT32_MAX || item > INT32_MAX) {
      throw std::runtime_error(path + ":" + std::to_string(number) +
                               ": expected user,item,rating with ids >= 0, found '" + line + "'");
    }
    ratings.push_back({static_cast<std::int32_t>(user), static_cast<std::int32_t>(item),
                       static_cast<float>(value)});
  }
  return ratings;
}

/// Root mean squared error of mean + W[user] . H[item] over `ratings`.
double rmse(const std::vector<Rating>& ratings, const std::vector<float>& W,
            const std::vector<float>& H, int k, float mean) {
  double squared_error = 0;
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    float prediction = mean;
    for (int j = 0; j < k; ++j) {
      prediction += W[r.user * k + j] * H[r.item * k + j];
    }
    squared_error += (r.value - prediction) * (r.value - prediction);
  }
  return std::sqrt(squared_error / static_cast<double>(ratings.size()));
}

/// FNV-1a over the bytes of `v`, continuing from `h`: equal hashes mean bitwise-equal models.
std::uint64_t hash_bytes(const std::vector<float>& v, std::uint64_t h = 0xcbf29ce484222325ULL) {
  const auto* p = reinterpret_cast<const unsigned char*>(v.data());
  for (std::size_t i = 0; i < v.size() * sizeof(float); ++i) {
    h = (h ^ p[i]) * 0x100000001b3ULL;
  }
  return h;
}

/// A positive integer argument, or exit with a message naming it.
int positive_argument(const char* text, const char* name) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 1 || value > 100000) {
    std::fprintf(stderr, "mf_plain: %s: expected an integer in [1, 100000], found '%s'\n", name,
                 text);
    std::exit(2);
  }
  return static_cast<int>(value);
}

int main(int argc, char** argv) {
  if (argc < 3 || argc > 5) {
    std::fprintf(stderr, "usage: mf_plain TRAIN.csv TEST.csv [k=32] [epochs=10]\n");
    return 2;
  }
  const int k = argc > 3 ? positive_argument(argv[3], "k") : 32;
  const int epochs = argc > 4 ? positive_argument(argv[4], "epochs") : 10;
  const float lr = 0.02f, reg = 0.05f;
  std::vector<Rating> ratings, test;
  try {
    ratings = read_ratings(argv[1]);
    test = read_ratings(argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mf_plain: %s\n", e.what());
    return 1;
  }
  if (ratings.empty()) {
    std::fprintf(stderr, "mf_plain: %s: no ratings\n", argv[1]);
    return 1;
  }
  int users = 0, items = 0;
  double sum = 0;
  for (const Rating& r : ratings) {
    users = std::max(users, r.user + 1);
    items = std::max(items, r.item + 1);
    sum += r.value;
  }
  for (const Rating& r : test) {
    users = std::max(users, r.user + 1);
    items = std::max(items, r.item + 1);
  }
  const auto mean = static_cast<float>(sum / static_cast<double>(ratings.size()));

  std::vector<float> W(static_cast<std::size_t>(users) * k), H(static_cast<std::size_t>(items) * k);
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.f, 0.1f);
  for (float& x : W) {
    x = normal(rng);
  }
  for (float& x : H) {
    x = normal(rng);
  }
  std::printf("mf_plain: ratings=%zu test=%zu users=%d items=%d k=%d\n", ratings.size(),
              test.size(), users, items, k);

  const auto start = std::chrono::steady_clock::now();
  double train_rmse = 0;
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    double loss = 0;
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      float prediction = mean;
      for (int j = 0; j < k; ++j) {
        prediction += W[r.user * k + j] * H[r.item * k + j];
      }
      const float e = r.value - prediction;
      loss += e * e;
      for (int j = 0; j < k; ++j) {
        const float w = W[r.user * k + j];
        const float h = H[r.item * k + j];
        W[r.user * k + j] += lr * (e * h - reg * w);
        H[r.item * k + j] += lr * (e * w - reg * h);
      }
    }
    train_rmse = std::sqrt(loss / static_cast<double>(ratings.size()));
    std::printf("epoch=%d train_rmse=%.4f\n", epoch, train_rmse);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double test_rmse = test.empty() ? 0 : rmse(test, W, H, k, mean);
  std::printf("final epochs=%d train_rmse=%.4f test_rmse=%.4f training_seconds=%.2f "
              "model_hash=%016llx\n",
              epochs, train_rmse, test_rmse, seconds,
              static_cast<unsigned long long>(hash_bytes(H, hash_bytes(W))));
  return 0;
}
