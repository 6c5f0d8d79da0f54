// A program with the pragma and nothing else of Rotor's runtime: no rotor::Session. Built with
// rotor-cc, main starts with a MainSession (the --rotor-* flags leave argv before the loop below
// reads it, also through main's `const char* argv[]`; the runtime ends when main returns); built
// serially it is the reference.
// NoSessionRun.cmake runs it with threads, at np 2 (each line printed once, each file written
// once, also the program's own files, written by every rank's serial code) and with
// --rotor-all-output.
#include <rotor/rotor.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

struct Edge {
  std::int32_t user;
  std::int32_t item;
  std::int32_t weight;
};

int main(int argc, const char* argv[]) { // const: as many programs declare it
  std::string out_dir = ".";
  for (int i = 1; i < argc; ++i) { // a strict parser: a leftover --rotor-* flag would stop here
    const std::string a = argv[i];
    if (a.rfind("--out=", 0) == 0) {
      out_dir = a.substr(6);
    } else {
      std::fprintf(stderr, "no_session_run: unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }
  std::vector<Edge> edges;
  for (int i = 0; i < 4000; ++i) {
    edges.push_back({(i * 7) % 41, (i * 13) % 31, i % 5 + 1});
  }
  rotor::Dataset<Edge> data(edges);
  rotor::DistArray<std::int64_t, 2> U({41, 3});
  rotor::DistArray<std::int64_t, 1> I({31});
  std::printf("edges=%zu\n", edges.size());
  for (int epoch = 1; epoch <= 3; ++epoch) {
    std::int64_t total = 0;
#pragma rotor parallel_for
    for (const Edge& e : data) {
      auto u = U.row(e.user);
      for (int k = 0; k < 3; ++k) {
        u(k) += e.weight * (k + epoch);
      }
      I[e.item] += 2 * e.weight;
      total += e.weight;
    }
    std::printf("epoch=%d total=%lld\n", epoch, static_cast<long long>(total));
  }
  std::uint64_t check = 0; // unsigned: the hash wraps (UBSan)
  for (std::int64_t i = 0; i < 41; ++i) {
    for (std::int64_t k = 0; k < 3; ++k) {
      check = check * 31 + static_cast<std::uint64_t>(U(i, k));
    }
  }
  for (std::int64_t i = 0; i < 31; ++i) {
    check = check * 31 + static_cast<std::uint64_t>(I[i]);
  }
  std::printf("check=%llu\n", static_cast<unsigned long long>(check));
  // Files written by serial code after the loops, on every rank, appending (so a second writer
  // would show): Rotor's own writer writes on rank 0 only; the program's own, through a C++ stream
  // and C stdio, reach the file from rank 0 only (runtime/src/FileWritesOnce.cpp).
  U.save_hdf5(out_dir + "/no_session_model.h5", "U");
  std::ofstream log(out_dir + "/no_session_log.txt", std::ios::app);
  log << "check=" << check << "\n";
  if (std::FILE* f = std::fopen((out_dir + "/no_session_stdio.txt").c_str(), "a")) {
    std::fprintf(f, "check=%llu\n", static_cast<unsigned long long>(check));
    std::fclose(f);
  }
  return 0;
}
