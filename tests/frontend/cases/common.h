// Shared declarations of the frontend test cases: Rotor's data structures and a few records.
#pragma once
#if __has_include(<rotor/rotor.h>)
#include <rotor/rotor.h>
#else
#include <rotor/distarray/Dataset.h>
#include <rotor/distarray/DistArray.h>
#include <rotor/distarray/IndexSpace.h>
#include "serial_run_loop.h"
#endif

#include <cstdint>

struct Rating {
  std::int32_t user;
  std::int32_t item;
  float value;
};
struct Token {
  std::int32_t doc;
  std::int32_t word;
  std::int32_t topic;
};
struct Feature {
  std::int32_t example;
  std::int32_t feature;
  float value;
  float label;
};
struct Triple {
  std::int32_t a;
  std::int32_t b;
  std::int32_t c;
  float value;
};
