#include "rotor/distarray/DistArray.h"
#include "rotor/distarray/InputError.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("rotor_da_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

TEST(DistArray, ShapeAccessAndZeroFill) {
  rotor::DistArray<float, 2> a({3, 4});
  EXPECT_EQ(a.rows(), 3);
  EXPECT_EQ(a.cols(), 4);
  EXPECT_EQ(a.size(), 12);
  for (std::int64_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a.data()[i], 0.f);
  }
  a(1, 2) = 5.f;
  EXPECT_EQ(a.data()[1 * 4 + 2], 5.f);
  auto r = a.row(1);
  EXPECT_EQ(r.size(), 4);
  EXPECT_EQ(r(2), 5.f);
  r *= 2.f;
  EXPECT_EQ(a(1, 2), 10.f);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % 64, 0u);
}

TEST(DistArray, NegativeExtentThrows) {
  EXPECT_THROW((rotor::DistArray<double, 2>({2, -1})), std::invalid_argument);
}

TEST(DistArray, CopyIsDeepAndMoveEmptiesSource) {
  rotor::DistArray<int, 1> a({5});
  a.fill(7);
  rotor::DistArray<int, 1> b = a;
  b[0] = 1;
  EXPECT_EQ(a[0], 7);
  rotor::DistArray<int, 1> c = std::move(a);
  EXPECT_EQ(c[4], 7);
  EXPECT_EQ(a.size(), 0);
  EXPECT_EQ(a.extent(0), 0);
  EXPECT_EQ(a.data(), nullptr);
  a = std::move(c);
  EXPECT_EQ(a[3], 7);
  EXPECT_EQ(c.size(), 0);
  a = b; // copy-assign
  EXPECT_EQ(a[0], 1);
  EXPECT_NE(a.data(), b.data());
}

TEST(DistArray, FillNormalDependsOnlyOnSeedAndIndex) {
  rotor::DistArray<double, 2> a({100, 50});
  a.fill_normal(1.0, 2.0, 42);
  rotor::DistArray<double, 1> b({5000});
  b.fill_normal(1.0, 2.0, 42);
  for (std::int64_t i = 0; i < 5000; ++i) {
    ASSERT_EQ(a.data()[i], b.data()[i]);
  }
  double sum = 0;
  double sq = 0;
  for (std::int64_t i = 0; i < 5000; ++i) {
    sum += b[i];
    sq += b[i] * b[i];
  }
  const double mean = sum / 5000;
  const double sd = std::sqrt(sq / 5000 - mean * mean);
  EXPECT_NEAR(mean, 1.0, 0.1);
  EXPECT_NEAR(sd, 2.0, 0.1);
  rotor::DistArray<double, 1> c({5000});
  c.fill_normal(1.0, 2.0, 43);
  EXPECT_NE(b[0], c[0]);
}

TEST(DistArray, FillUniformStaysInRange) {
  rotor::DistArray<float, 1> f({10000});
  f.fill_uniform(-1.f, 1.f, 3);
  rotor::DistArray<std::int32_t, 1> k({10000});
  k.fill_uniform(0, 10, 3);
  int seen[10] = {};
  for (std::int64_t i = 0; i < 10000; ++i) {
    ASSERT_GE(f[i], -1.f);
    ASSERT_LT(f[i], 1.f);
    ASSERT_GE(k[i], 0);
    ASSERT_LT(k[i], 10);
    ++seen[k[i]];
  }
  for (int v : seen) {
    EXPECT_GT(v, 800);
  }
}

TEST(DistArray, GatherIsAWholeCopy) {
  rotor::DistArray<float, 2> a({4, 3});
  a.fill_uniform(0.f, 1.f, 9);
  auto g = a.gather();
  ASSERT_EQ(g.shape(), a.shape());
  for (std::int64_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(g.data()[i], a.data()[i]);
  }
}

TEST(DistArrayHdf5, RoundTripAllTypesAndReplace) {
  const std::string path = temp_path("rt.h5");
  std::filesystem::remove(path);
  rotor::DistArray<float, 2> w({7, 3});
  w.fill_normal(0.f, 1.f, 1);
  rotor::DistArray<std::int64_t, 1> n({9});
  n.fill_uniform(-5, 5, 2);
  rotor::DistArray<std::uint32_t, 3> u({2, 3, 4});
  u.fill_uniform(0u, 100u, 3);
  w.save_hdf5(path, "W");
  n.save_hdf5(path, "counts/n"); // extends the file, intermediate group
  u.save_hdf5(path, "U");
  rotor::DistArray<float, 2> w2({7, 3});
  w2.load_hdf5(path, "W");
  rotor::DistArray<std::int64_t, 1> n2({9});
  n2.load_hdf5(path, "counts/n");
  rotor::DistArray<std::uint32_t, 3> u2({2, 3, 4});
  u2.load_hdf5(path, "U");
  for (std::int64_t i = 0; i < w.size(); ++i) {
    ASSERT_EQ(w.data()[i], w2.data()[i]);
  }
  for (std::int64_t i = 0; i < n.size(); ++i) {
    ASSERT_EQ(n[i], n2[i]);
  }
  for (std::int64_t i = 0; i < u.size(); ++i) {
    ASSERT_EQ(u.data()[i], u2.data()[i]);
  }
  // Replacing a dataset with one of another shape.
  rotor::DistArray<float, 2> w3({2, 2});
  w3.fill(4.f);
  w3.save_hdf5(path, "W");
  rotor::DistArray<float, 2> w4({2, 2});
  w4.load_hdf5(path, "W");
  EXPECT_EQ(w4(1, 1), 4.f);
  // No temporary file left behind.
  for (const auto& e :
       std::filesystem::directory_iterator(std::filesystem::path(path).parent_path())) {
    EXPECT_EQ(e.path().string().find(path + ".tmp"), std::string::npos);
  }
  std::filesystem::remove(path);
}

TEST(DistArrayHdf5, ReadableByH5dump) {
  if (std::system("command -v h5dump > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "h5dump not installed";
  }
  const std::string path = temp_path("dump.h5");
  rotor::DistArray<double, 2> a({2, 2});
  a(0, 0) = 1.5;
  a(1, 1) = -2.25;
  a.save_hdf5(path, "A");
  const std::string out = path + ".txt";
  ASSERT_EQ(std::system(("h5dump -d A " + path + " > " + out).c_str()), 0);
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("H5T_IEEE_F64LE"), std::string::npos) << text;
  EXPECT_NE(text.find("( 2, 2 )"), std::string::npos) << text;
  EXPECT_NE(text.find("-2.25"), std::string::npos) << text;
  std::filesystem::remove(path);
  std::filesystem::remove(out);
}

TEST(DistArrayHdf5, ErrorsNameFileAndProblem) {
  const std::string path = temp_path("err.h5");
  rotor::DistArray<float, 2> a({3, 3});
  a.save_hdf5(path, "A");
  rotor::DistArray<float, 2> wrong_shape({3, 4});
  try {
    wrong_shape.load_hdf5(path, "A");
    FAIL() << "no error";
  } catch (const rotor::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("shape (3, 3)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(a.load_hdf5(path, "missing"), rotor::InputError);
  rotor::DistArray<std::int32_t, 2> ints({3, 3});
  EXPECT_THROW(ints.load_hdf5(path, "A"), rotor::InputError);
  EXPECT_THROW(a.load_hdf5(path + ".nope", "A"), rotor::InputError);
  const std::string junk = temp_path("junk.h5");
  std::ofstream(junk) << "not hdf5";
  EXPECT_THROW(a.load_hdf5(junk, "A"), rotor::InputError);
  EXPECT_THROW(a.save_hdf5(junk, "A"), std::runtime_error); // refuses to clobber a non-HDF5 file
  std::ifstream still(junk);
  std::string content;
  std::getline(still, content);
  EXPECT_EQ(content, "not hdf5");
  EXPECT_THROW(a.save_hdf5("/nonexistent-dir/x.h5", "A"), std::runtime_error);
  std::filesystem::remove(path);
  std::filesystem::remove(junk);
}

} // namespace
