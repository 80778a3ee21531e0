#include "graphs/startup_threads.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

namespace ftsim::graphs {

unsigned startup_threads() {
  static const unsigned threads = [] {
    if (const char* forced = std::getenv("FTSIM_STARTUP_THREADS")) {
      try {
        const int n = std::stoi(forced);
        if (n >= 1) return unsigned(n);
      } catch (const std::exception&) {
      }
      std::cerr << "ftsim: FTSIM_STARTUP_THREADS=\"" << forced
                << "\" is not a positive number: the start-up uses the machine's hardware threads\n";
    }
    return std::max(1u, std::thread::hardware_concurrency());
  }();
  return threads;
}

}  // namespace ftsim::graphs
