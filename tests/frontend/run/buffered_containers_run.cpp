// Compile-and-run test of buffered(...) on plain containers (issue 16): each loop over a plain
// container listed in buffered(...) runs beside the same loop over a rotor::DistArray listed in
// buffered(...). Both get per-worker buffers merged by the same rule, so after each pair the
// container must equal the DistArray bitwise, on every rank (a rank that sees a difference exits
// 1). Built only through rotor-cc; run at 2 threads and at np 2 (twice: deterministic).
#include <rotor/rotor.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

std::array<double, 13> g_weights{}; // a global std::array (outside any namespace)

namespace buffered_test {

constexpr int k_features = 13;

struct Example {
  float x[k_features];
  std::int32_t label;
};

struct Rating {
  std::int32_t user;
  std::int32_t item;
  float value;
};

int g_checks = 0;
int g_equal = 0;

/// Counts one comparison of `n` elements at `a` and `b`, bitwise; prints the first difference.
template <class T> void check(const char* what, const T* a, const T* b, std::size_t n) {
  ++g_checks;
  if (std::memcmp(a, b, n * sizeof(T)) == 0) {
    ++g_equal;
    return;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) {
      std::fprintf(stderr, "%s: element %zu differs: %.17g vs %.17g\n", what, i,
                   static_cast<double>(a[i]), static_cast<double>(b[i]));
      return;
    }
  }
}

double sigmoid_step(const double* z_parts, int n) {
  double z = 0;
  for (int j = 0; j < n; ++j) {
    z += z_parts[j];
  }
  return 1.0 / (1.0 + std::exp(-z));
}

/// Logistic-regression epochs over a local std::vector merged by the mean (buffered_mean).
void local_vector(const std::vector<Example>& data) {
  std::vector<double> w(k_features, 0.01);
  rotor::DistArray<double, 1> wd({k_features});
  for (int j = 0; j < k_features; ++j) {
    wd(j) = 0.01;
  }
  rotor::buffered_mean(w); // model averaging, the same rule for both
  rotor::buffered_mean(wd);
  for (int epoch = 0; epoch < 2; ++epoch) {
#pragma rotor parallel_for buffered(w)
    for (const Example& e : data) {
      double parts[k_features];
      for (int j = 0; j < k_features; ++j) {
        parts[j] = w[j] * e.x[j];
      }
      const double g = sigmoid_step(parts, k_features) - e.label;
      for (int j = 0; j < k_features; ++j) {
        w[j] -= 0.1 * g * e.x[j];
      }
    }
#pragma rotor parallel_for buffered(wd)
    for (const Example& e : data) {
      double parts[k_features];
      for (int j = 0; j < k_features; ++j) {
        parts[j] = wd(j) * e.x[j];
      }
      const double g = sigmoid_step(parts, k_features) - e.label;
      for (int j = 0; j < k_features; ++j) {
        wd(j) -= 0.1 * g * e.x[j];
      }
    }
  }
  check("local std::vector", w.data(), wd.data(), w.size());
  rotor::buffered_sum(w);
  rotor::buffered_sum(wd);
}

/// Rows of a parameter std::vector<float> (`rows[label * K + j]`) and the global std::array.
void parameter_rows(const std::vector<Example>& data, std::vector<float>& rows) {
  rotor::DistArray<float, 2> rd({2, k_features});
  rotor::DistArray<double, 1> gd({k_features});
  std::fill(rd.data(), rd.data() + rd.size(), 0.0f);
  std::fill(gd.data(), gd.data() + gd.size(), 0.0);
  for (int epoch = 0; epoch < 2; ++epoch) {
#pragma rotor parallel_for buffered(rows, g_weights)
    for (const Example& e : data) {
      for (int j = 0; j < k_features; ++j) {
        rows[e.label * k_features + j] += e.x[j] * 0.5f;
        g_weights[j] += e.x[j] * (e.label ? 1.0 : -1.0) + g_weights[j] * 0.001;
      }
    }
#pragma rotor parallel_for buffered(rd, gd)
    for (const Example& e : data) {
      for (int j = 0; j < k_features; ++j) {
        rd(e.label, j) += e.x[j] * 0.5f;
        gd(j) += e.x[j] * (e.label ? 1.0 : -1.0) + gd(j) * 0.001;
      }
    }
  }
  check("parameter std::vector rows", rows.data(), rd.data(), rows.size());
  check("global std::array", g_weights.data(), gd.data(), g_weights.size());
}

/// A member std::vector reached through this, with size() in the body.
struct Model {
  std::vector<double> bias = std::vector<double>(7, 0.0);
  rotor::DistArray<double, 1> bias_d{{7}};

  void fit(const std::vector<Example>& data) {
    std::fill(bias_d.data(), bias_d.data() + bias_d.size(), 0.0);
#pragma rotor parallel_for buffered(bias)
    for (const Example& e : data) {
      const std::size_t at = static_cast<std::size_t>(e.label) * 3 % bias.size();
      bias[at] += e.x[0] - 0.01 * bias[at];
    }
#pragma rotor parallel_for buffered(bias_d)
    for (const Example& e : data) {
      const std::size_t at = static_cast<std::size_t>(e.label) * 3 % 7;
      bias_d(at) += e.x[0] - 0.01 * bias_d(at);
    }
    check("member std::vector", bias.data(), bias_d.data(), bias.size());
  }
};

/// A T* table whose rows the keys of a Dataset bound (`p[r.user * 4 + j]`).
void pointer_table(rotor::Dataset<Rating>& ratings, float* p, int users) {
  rotor::DistArray<float, 2> pd({users, 4});
  std::copy(p, p + static_cast<std::size_t>(users) * 4, pd.data());
#pragma rotor parallel_for buffered(p)
  for (const Rating& r : ratings) {
    for (int j = 0; j < 4; ++j) {
      p[r.user * 4 + j] += r.value * static_cast<float>(j + 1) - 0.5f * p[r.user * 4 + j];
    }
  }
#pragma rotor parallel_for buffered(pd)
  for (const Rating& r : ratings) {
    for (int j = 0; j < 4; ++j) {
      pd(r.user, j) += r.value * static_cast<float>(j + 1) - 0.5f * pd(r.user, j);
    }
  }
  check("T* table", p, pd.data(), static_cast<std::size_t>(users) * 4);
}

} // namespace buffered_test

using namespace buffered_test;

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  std::vector<Example> data(600);
  for (std::size_t i = 0; i < data.size(); ++i) {
    for (int j = 0; j < k_features; ++j) {
      data[i].x[j] = static_cast<float>(static_cast<int>((i * 31 + j * 7) % 17) - 8) / 8.0f;
    }
    data[i].label = static_cast<std::int32_t>((i * 5 + 3) % 7 < 3);
  }
  local_vector(data);
  std::vector<float> rows(2 * k_features, 0.0f);
  parameter_rows(data, rows);
  Model model;
  model.fit(data);
  const int users = 11;
  std::vector<Rating> records;
  for (int i = 0; i < 500; ++i) {
    records.push_back({(i * 7) % users, i % 5, static_cast<float>(i % 9) / 4.0f});
  }
  rotor::Dataset<Rating> ratings(records);
  std::vector<float> table(static_cast<std::size_t>(users) * 4, 1.0f);
  pointer_table(ratings, table.data(), users);
  double sum = 0; // every container, so two runs at np 2 compare all of them
  for (float v : rows) {
    sum += v;
  }
  for (double v : g_weights) {
    sum += v;
  }
  for (double v : model.bias) {
    sum += v;
  }
  for (float v : table) {
    sum += v;
  }
  std::printf("equal=%d of %d checksum=%lld\n", g_equal, g_checks,
              static_cast<long long>(std::llround(sum * 1000)));
  return g_equal == g_checks ? 0 : 1;
}
