// Test input of frontend.driver.pragma_in_header: the annotated loop is in loop.h.
#include "loop.h"

int main() {
  rotor::Dataset<Rating> ratings(std::vector<Rating>{{0, 0, 1.0f}, {1, 0, 2.0f}});
  rotor::DistArray<float, 1> bias({2});
  scale(ratings, bias);
  return bias(1) > 0 ? 0 : 1;
}
