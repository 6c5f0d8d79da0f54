// --rotor-checkpoint, --rotor-checkpoint-every and --rotor-resume parsing.

#include "rotor/runtime/Session.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

rotor::SessionSettings parse(std::vector<std::string> args) {
  args.insert(args.begin(), "prog");
  std::vector<char*> argv;
  for (auto& a : args) {
    argv.push_back(a.data());
  }
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  return rotor::detail::parse_settings(argc, argv.data(), false);
}

TEST(CheckpointSettings, ParsesAllThreeFlags) {
  auto s = parse({"--rotor-checkpoint=ck", "--rotor-checkpoint-every=5", "--rotor-resume"});
  EXPECT_EQ(s.checkpoint_dir, "ck");
  EXPECT_EQ(s.checkpoint_every, 5);
  EXPECT_TRUE(s.resume);
}

TEST(CheckpointSettings, DefaultsAreOff) {
  auto s = parse({});
  EXPECT_TRUE(s.checkpoint_dir.empty());
  EXPECT_EQ(s.checkpoint_every, 1);
  EXPECT_FALSE(s.resume);
}

TEST(CheckpointSettings, RejectsBadValues) {
  EXPECT_THROW(parse({"--rotor-checkpoint"}), rotor::SettingsError);
  EXPECT_THROW(parse({"--rotor-checkpoint=ck", "--rotor-checkpoint-every=0"}),
               rotor::SettingsError);
  EXPECT_THROW(parse({"--rotor-checkpoint=ck", "--rotor-checkpoint-every=x"}),
               rotor::SettingsError);
  EXPECT_THROW(parse({"--rotor-checkpoint=ck", "--rotor-resume=1"}), rotor::SettingsError);
  try {
    parse({"--rotor-resume"});
    FAIL() << "--rotor-resume without a directory was accepted";
  } catch (const rotor::SettingsError& e) {
    EXPECT_NE(std::string(e.what()).find("--rotor-checkpoint=DIR"), std::string::npos);
  }
}

} // namespace
