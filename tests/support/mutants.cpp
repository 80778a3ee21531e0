// Test builds only: the definition behind protocols/mutants.hpp's hooks. The environment variable
// FTSIM_MUTANT names the planted fault that acts (a forked simulation inherits it); each time it
// acts is counted (RunMetrics::test_faults_fired).
#include "protocols/mutants.hpp"

#include <cstdlib>
#include <cstring>

#include "tests/support/planted_faults.hpp"

namespace ftsim::mutants {

bool acts(const char* name) {
  const char* chosen = std::getenv("FTSIM_MUTANT");
  if (chosen == nullptr || std::strcmp(chosen, name) != 0) return false;
  ++testing::planted_faults().fired;
  return true;
}

}  // namespace ftsim::mutants
