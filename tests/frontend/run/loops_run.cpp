// Compile-and-run test of rewritten loops: built serially (plain compiler) and with rotor-cc;
// both builds must print the same lines. Integer arithmetic keeps unordered loops exact.
#include <rotor/rotor.h>

#include <cstdint>
#include <cstdio>
#include <vector>

struct Edge {
  std::int32_t user;
  std::int32_t item;
  std::int32_t weight;
};

static void add_weight(rotor::DistArray<std::int64_t, 1>& counts, int at, std::int64_t w) {
  counts[at] += w;
}

// Loops in templates are analysed per instantiation (frontend/src/TemplateLoops.h): a function
// template used with two element types, and a member of a class template.
template <class T>
static void scale_rows(rotor::Dataset<Edge>& data, rotor::DistArray<T, 2>& M, T factor) {
#pragma rotor parallel_for
  for (const Edge& e : data) {
    auto m = M.row(e.item);
    m(0) += factor * e.weight;
    m(1) += static_cast<T>(e.user);
  }
}

template <class T> struct ItemCounts {
  rotor::DistArray<T, 1> counts{{29}};
  T add(rotor::Dataset<Edge>& data) {
    T sum = 0;
#pragma rotor parallel_for
    for (const Edge& e : data) {
      counts[e.item] += e.weight;
      sum += e.weight;
    }
    return sum;
  }
};

template <class T> static std::int64_t hash_rows(const rotor::DistArray<T, 2>& M) {
  std::int64_t h = 0;
  for (std::int64_t r = 0; r < M.extent(0); ++r) {
    for (std::int64_t c = 0; c < M.extent(1); ++c) {
      h = (h * 31 + static_cast<std::int64_t>(M(r, c))) % 1000000007;
    }
  }
  return h;
}

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  std::vector<Edge> edges;
  for (int i = 0; i < 3000; ++i) {
    edges.push_back({(i * 7) % 37, (i * 13) % 29, i % 5 + 1});
  }
  rotor::Dataset<Edge> data(edges);
  rotor::DistArray<std::int64_t, 2> U({37, 4});
  rotor::DistArray<std::int64_t, 1> I({29});
  rotor::DistArray<std::int64_t, 1> V({37});
  rotor::Accumulator<std::int64_t, rotor::Max> biggest;
  std::int64_t total = 0;
  // A loop with `break` is planned serial (run in record order; kept first here because the
  // order of a dataset after a parallel loop is the runtime's to choose).
#pragma rotor parallel_for
  for (const Edge& e : data) {
    if (e.user == 36 && e.item == 28) {
      break;
    }
    V[e.user] += 1;
  }
  for (int epoch = 0; epoch < 3; ++epoch) {
#pragma rotor parallel_for
    for (const Edge& e : data) {
      auto u = U.row(e.user);
      for (int k = 0; k < 4; ++k) {
        u(k) += e.weight * (k + 1);
      }
      I[e.item] += 2 * e.weight;
      total += e.weight;
      biggest += e.weight + epoch;
    }
  }
  std::int64_t skipped = 0;
#pragma rotor parallel_for
  for (const Edge& e : data) {
    if (e.weight == 3) {
      continue;
    }
    add_weight(V, e.user, e.weight);
    skipped += 1;
  }

  rotor::IndexSpace<2> grid({24, 18});
  rotor::DistArray<std::int64_t, 2> A({24, 18});
#pragma rotor parallel_for ordered
  for (auto [i, j] : grid) {
    const std::int64_t up = i > 0 ? A(i - 1, j) : 1;
    const std::int64_t left = j > 0 ? A(i, j - 1) : 1;
    A(i, j) = (3 * up + left + i * j) % 1000003;
  }

  rotor::DistArray<std::int64_t, 2> M64({29, 2});
  rotor::DistArray<std::int32_t, 2> M32({29, 2});
  scale_rows(data, M64, std::int64_t{3});
  scale_rows(data, M32, std::int32_t{2});
  ItemCounts<std::int64_t> item_counts;
  const std::int64_t counted = item_counts.add(data);
  std::printf("templates: M64=%lld M32=%lld counted=%lld\n", static_cast<long long>(hash_rows(M64)),
              static_cast<long long>(hash_rows(M32)), static_cast<long long>(counted));

  std::int64_t su = 0;
  std::int64_t si = 0;
  std::int64_t sv = 0;
  std::int64_t sa = 0;
  for (int r = 0; r < 37; ++r) {
    for (int k = 0; k < 4; ++k) {
      su = (su * 31 + U(r, k)) % 1000000007;
    }
    sv = (sv * 31 + V[r]) % 1000000007;
  }
  for (int r = 0; r < 29; ++r) {
    si = (si * 31 + I[r]) % 1000000007;
  }
  for (int i = 0; i < 24; ++i) {
    for (int j = 0; j < 18; ++j) {
      sa = (sa * 31 + A(i, j)) % 1000000007;
    }
  }
  std::printf("U=%lld I=%lld V=%lld A=%lld total=%lld biggest=%lld skipped=%lld\n",
              static_cast<long long>(su), static_cast<long long>(si), static_cast<long long>(sv),
              static_cast<long long>(sa), static_cast<long long>(total),
              static_cast<long long>(biggest.value()), static_cast<long long>(skipped));
  return 0;
}
