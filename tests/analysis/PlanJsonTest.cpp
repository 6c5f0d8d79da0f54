// plan_to_json: the contract §3 loop object, read back with nlohmann::json.

#include "TestModels.h"

#include "rotor/analysis/Plan.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace rotor::analysis {
namespace {

nlohmann::json json_of(const std::string& text) {
  const LoopModel m = test::model_from(text);
  return nlohmann::json::parse(plan_to_json(m, plan_loop(m)));
}

TEST(PlanJson, MfMatchesTheContractExample) {
  const auto j = json_of("loop sgd_mf.cpp:42\ndataset user item\narray W 2\narray H 2\n"
                         "read W[user][:]\nread H[item][:]\nwrite W[user][:]\nwrite H[item][:]\n"
                         "reduction loss\n");
  EXPECT_EQ(j["file"], "sgd_mf.cpp");
  EXPECT_EQ(j["line"], 42);
  EXPECT_EQ(j["plan"]["kind"], "rotation");
  EXPECT_EQ(j["plan"]["fields"], nlohmann::json({"user", "item"}));
  EXPECT_FALSE(j["plan"].contains("reason"));
  EXPECT_EQ(j["arrays"][0]["name"], "W");
  EXPECT_EQ(j["arrays"][0]["role"], "partitioned");
  EXPECT_EQ(j["arrays"][0]["field"], "user");
  EXPECT_EQ(j["arrays"][1]["role"], "rotating");
  EXPECT_EQ(j["arrays"][1]["field"], "item");
  EXPECT_EQ(j["arrays"][1]["dims"][0]["lo"], 0);
  EXPECT_TRUE(j["arrays"][1]["dims"][1]["field"].is_null());
  EXPECT_EQ(j["reductions"], nlohmann::json({"loss"}));
  // Four access pairs, two distinct vectors.
  EXPECT_EQ(j["dependences"], nlohmann::json::parse(R"([["0","*"],["*","0"]])"));
  EXPECT_TRUE(j["notes"].is_array());
}

TEST(PlanJson, UnimodularHasMatrixAndBase) {
  const auto j = json_of("index_space 2\nordered\narray A 2\nwrite A[i0][i1]\n"
                         "read A[i0-1][i1+1]\nread A[i0-1][i1]\n");
  EXPECT_EQ(j["plan"]["kind"], "unimodular");
  EXPECT_EQ(j["plan"]["matrix"], nlohmann::json::parse("[[1,0],[1,1]]"));
  EXPECT_EQ(j["plan"]["base"], "wavefront");
}

TEST(PlanJson, DataParallelListsBuffered) {
  const auto j = json_of("dataset ex\nbuffered w\narray w 1\nwrite w[?f]\n");
  EXPECT_EQ(j["plan"]["kind"], "data_parallel");
  EXPECT_EQ(j["plan"]["buffered"], nlohmann::json({"w"}));
  EXPECT_EQ(j["arrays"][0]["role"], "buffered");
}

TEST(PlanJson, SerialHasReasonAndBlocking) {
  const auto j = json_of("dataset ex\narray w 1\nwrite w[?f] @lr.cpp:9\n");
  EXPECT_EQ(j["plan"]["kind"], "serial");
  EXPECT_NE(j["plan"]["reason"].get<std::string>().find("'w'"), std::string::npos);
  EXPECT_EQ(j["plan"]["blocking"]["line"], 9);
}

TEST(PlanJson, SymbolicOffsetsAreStrings) {
  const auto j = json_of("index_space 1\narray A 1\nwrite A[i0+s]\n");
  EXPECT_EQ(j["arrays"][0]["dims"][0]["lo"], "s");
}

} // namespace
} // namespace rotor::analysis
