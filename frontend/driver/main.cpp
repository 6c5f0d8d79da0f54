// rotor-cc: analyse, rewrite and compile annotated C++ (see Driver.h).
#include "Driver.h"

#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  try {
    return rotor::driver::run_driver(std::vector<std::string>(argv + 1, argv + argc), argv[0]);
  } catch (const std::exception& e) {
    std::cerr << "rotor-cc: error: " << e.what() << "\n";
    return 2;
  }
}
