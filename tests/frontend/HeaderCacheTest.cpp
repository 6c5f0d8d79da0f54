// The precompiled rotor.h of the analysis parse (frontend/src/HeaderCache.h): when it applies,
// that the parse with it gives the same result as without, and that a changed header is noticed.
#include "HeaderCache.h"
#include "rotor/frontend/Frontend.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace fs = std::filesystem;
using rotor::frontend::FileResult;
using rotor::frontend::Options;
using rotor::frontend::process_source;
using rotor::frontend::starts_with_rotor_include;

namespace {

/// A fresh directory under the test's working directory.
fs::path fresh_dir(const std::string& name) {
  fs::path d = fs::current_path() / ("header_cache_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

Options rotor_options() {
  Options o;
  std::ifstream cfg(ROTOR_TEST_CC_CONFIG);
  std::string line;
  while (std::getline(cfg, line)) {
    if (line.rfind("compile ", 0) == 0) {
      o.clang_args.push_back(line.substr(8));
    }
  }
  return o;
}

int count_pch(const fs::path& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    n += e.path().extension() == ".pch" ? 1 : 0;
  }
  return n;
}

fs::path the_pch(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".pch") {
      return e.path();
    }
  }
  return {};
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::trunc);
  out << text;
}

const char* kMf = R"(#include <rotor/rotor.h>
struct Rating { int user; int item; float value; };
double f(rotor::Dataset<Rating>& ratings, rotor::DistArray<float, 2>& W,
         rotor::DistArray<float, 2>& H, float lr) {
  double loss = 0;
#pragma rotor parallel_for
  for (const Rating& r : ratings) {
    auto w = W.row(r.user);
    auto h = H.row(r.item);
    const float e = r.value - w.dot(h);
    loss += e * e;
    w += lr * e * h;
    h += lr * e * w;
  }
  return loss;
}
)";

} // namespace

TEST(HeaderCache, AppliesOnlyWhenRotorHeaderComesFirst) {
  EXPECT_TRUE(starts_with_rotor_include("#include <rotor/rotor.h>\nint x;"));
  EXPECT_TRUE(starts_with_rotor_include("// c\n/* d\n */\n  #  include  <rotor/rotor.h> // x\n"));
  EXPECT_FALSE(starts_with_rotor_include("#define N 3\n#include <rotor/rotor.h>\n"));
  EXPECT_FALSE(starts_with_rotor_include("#include <vector>\n#include <rotor/rotor.h>\n"));
  EXPECT_FALSE(starts_with_rotor_include("#include \"rotor/rotor.h\"\n"));
  EXPECT_FALSE(starts_with_rotor_include("#include <rotor/rotor.h> int x;\n"));
  EXPECT_FALSE(starts_with_rotor_include("// a comment \\\n#include <rotor/rotor.h>\n"));
  EXPECT_FALSE(starts_with_rotor_include("/* unterminated"));
  EXPECT_FALSE(starts_with_rotor_include(""));
}

TEST(HeaderCache, SameResultWithAndWithoutPch) {
  const fs::path cache = fresh_dir("same");
  Options plain = rotor_options();
  Options cached = plain;
  cached.pch_cache_dir = cache.string();
  const FileResult a = process_source(kMf, "mf.cpp", plain);
  const FileResult b = process_source(kMf, "mf.cpp", cached); // builds the PCH
  const FileResult c = process_source(kMf, "mf.cpp", cached); // uses it
  EXPECT_EQ(count_pch(cache), 1);
  ASSERT_TRUE(a.ok);
  for (const FileResult* r : {&b, &c}) {
    ASSERT_TRUE(r->ok);
    EXPECT_EQ(r->rewritten, a.rewritten);
    ASSERT_EQ(r->loops.size(), 1u);
    EXPECT_EQ(r->loops[0].plan.kind, a.loops[0].plan.kind);
    EXPECT_EQ(r->loops[0].model.accesses.size(), a.loops[0].model.accesses.size());
  }
  // Another argument set gets its own PCH; -include never uses one.
  cached.clang_args.push_back("-DROTOR_TEST_MACRO=1");
  EXPECT_TRUE(process_source(kMf, "mf.cpp", cached).ok);
  EXPECT_EQ(count_pch(cache), 2);
  cached.clang_args.push_back("-include");
  cached.clang_args.push_back("cstdio");
  EXPECT_TRUE(process_source(kMf, "mf.cpp", cached).ok);
  EXPECT_EQ(count_pch(cache), 2);
}

TEST(HeaderCache, ChangedHeaderRebuildsThePch) {
  const fs::path dir = fresh_dir("stale");
  fs::create_directories(dir / "inc" / "rotor");
  write(dir / "inc" / "rotor" / "rotor.h", "#pragma once\nnamespace rotor { int first(); }\n");
  Options o;
  o.clang_args = {"-isystem", (dir / "inc").string()};
  o.pch_cache_dir = (dir / "cache").string();
  EXPECT_TRUE(
      process_source("#include <rotor/rotor.h>\nint f() { return rotor::first(); }\n", "a.cpp", o)
          .ok);
  ASSERT_EQ(count_pch(dir / "cache"), 1);
  const auto built = fs::last_write_time(the_pch(dir / "cache"));
  // A system header changed (size and mtime): Clang rejects the PCH and it is built again.
  write(dir / "inc" / "rotor" / "rotor.h",
        "#pragma once\nnamespace rotor { int first(); int second(); }\n");
  fs::last_write_time(dir / "inc" / "rotor" / "rotor.h",
                      fs::file_time_type::clock::now() + std::chrono::seconds(5));
  EXPECT_TRUE(
      process_source("#include <rotor/rotor.h>\nint g() { return rotor::second(); }\n", "b.cpp", o)
          .ok);
  EXPECT_NE(fs::last_write_time(the_pch(dir / "cache")), built);
  // A user error with the PCH: not ok, like without it.
  EXPECT_FALSE(
      process_source("#include <rotor/rotor.h>\nint h() { return rotor::third(); }\n", "c.cpp", o)
          .ok);
}

TEST(HeaderCache, UnwritableCacheFallsBack) {
  Options o = rotor_options();
  o.pch_cache_dir = "/proc/rotor-no-such-dir";
  const FileResult r = process_source(kMf, "mf.cpp", o);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.loops.size(), 1u);
}
