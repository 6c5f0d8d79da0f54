#include "common.h"

#include <cstddef>
#include <vector>

// Index loops over a std::vector that must stay serial: one reads an element another iteration
// writes, one leaves early (diagnostics/index_loop_bound.cpp: a loop that changes the bound).
void neighbours(std::vector<Token>& tokens, rotor::DistArray<std::int32_t, 2>& doc_topic) {
#pragma rotor parallel_for
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    tokens[i].topic = tokens[i + 1].topic; // reads a record another iteration writes
    doc_topic(tokens[i].doc, 0) += 1;
  }
}

void stops(std::vector<Rating>& ratings, rotor::DistArray<float, 1>& bu) {
#pragma rotor parallel_for
  for (std::size_t i = 0; i < ratings.size(); ++i) {
    if (ratings[i].value < 0) {
      break;
    }
    bu[ratings[i].user] += ratings[i].value;
  }
}
