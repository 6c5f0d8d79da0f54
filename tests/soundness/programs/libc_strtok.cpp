// Shape: `strtok(nullptr, ...)` in the body: libc's hidden cursor into a buffer declared outside.
#include "soundness.h"

#include <cstring>
#include <string>

int main(int argc, char** argv) {
  rotor::Session session(argc, argv);
  rotor::Dataset<Rating> ratings(snd::ratings());
  rotor::DistArray<std::int64_t, 1> bu({37});
  std::string text;
  for (int i = 0; i < 3100; ++i) {
    text += std::to_string((i * 17) % 251) + " ";
  }
  for (int it = 0; it < 3; ++it) {
    std::vector<char> buf(text.begin(), text.end());
    buf.push_back('\0');
    std::strtok(buf.data(), " ");
#pragma rotor parallel_for
    for (const Rating& r : ratings) {
      const char* tok = std::strtok(nullptr, " ");
      const int v = tok ? std::atoi(tok) : -1;
      bu[r.user] = (bu[r.user] * 3 + v + r.item) % 1000003;
    }
  }
  snd::Hash h;
  h << bu;
  h.print();
  return 0;
}
