// libFuzzer target: load_uci_bow.
#include "FuzzInput.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = rotor_fuzz::write_input(data, size);
  rotor_fuzz::expect_ok_or_input_error([&] {
    rotor::BagOfWordsInfo info;
    auto d = rotor::load_uci_bow<rotor_fuzz::Token>(path, &info);
    for (const auto& t : d) {
      if (t.doc < 0 || t.doc >= info.documents || t.word < 0 || t.word >= info.words) {
        std::abort(); // an id outside the header's ranges
      }
    }
    if (d.size() != info.tokens) {
      std::abort();
    }
  });
  return 0;
}
