#include "common.h"

#include <vector>

// Loops over a std::vector that write its elements and read another name that may alias them
// (a reference to the vector, a parameter the caller may pass the same vector as): serial.
void through_alias(std::vector<Token>& tokens, rotor::DistArray<std::int32_t, 2>& doc_topic) {
  std::vector<Token>& alias = tokens;
#pragma rotor parallel_for
  for (Token& t : tokens) {
    t.topic = alias[5].topic;
    doc_topic(t.doc, 0) += 1;
  }
}

void through_parameter(std::vector<Token>& tokens, const std::vector<Token>& other,
                       rotor::DistArray<std::int32_t, 2>& doc_topic) {
#pragma rotor parallel_for
  for (Token& t : tokens) {
    t.topic = other[5].topic;
    doc_topic(t.doc, 0) += 1;
  }
}

// Reading another vector is fine when the loop writes no element: parallel (one_d by doc).
void reads_only(const std::vector<Token>& tokens, const std::vector<Token>& other,
                rotor::DistArray<std::int32_t, 2>& doc_topic) {
#pragma rotor parallel_for
  for (const Token& t : tokens) {
    doc_topic(t.doc, 0) += other[5].topic;
  }
}
