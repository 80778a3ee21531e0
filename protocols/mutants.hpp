#pragma once
// The one seam where the mutation checks plant faults in a protocol (tests/campaign/*_mutation_test.cpp).
// A protocol's .cpp writes `if (... && FTSIM_MUTANT(name)) { planted fault }`. The protocol library
// compiles every hook to `false`: no call, no global, nothing of the tests. tests/CMakeLists.txt
// compiles a protocol's sources a second time with FTSIM_MUTANTS, for the mutation tests only;
// there a hook asks ftsim::mutants::acts, declared here and defined only in tests/support/mutants.cpp.
// Use it in .cpp files only: an inline function of a header would differ between the two builds.
#ifdef FTSIM_MUTANTS
namespace ftsim::mutants {
// Whether the planted fault `name` acts here (the test chooses it; each time it acts is counted).
bool acts(const char* name);
}  // namespace ftsim::mutants
#define FTSIM_MUTANT(name) ::ftsim::mutants::acts(#name)
#else
#define FTSIM_MUTANT(name) false
#endif
