#include "common.h"

void relabel(rotor::Dataset<Token>& tokens, const rotor::DistArray<std::int32_t, 1>& map) {
#pragma rotor parallel_for
  for (Token& t : tokens) {
    t.topic = map[t.word];
  }
}
