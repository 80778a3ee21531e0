#pragma once
// Where the mutation check plants faults in the buddy restart (tests/campaign/buddy_mutation_test.cpp).
// tests/CMakeLists.txt compiles every protocols/buddy/*.cpp but module.cpp a second time with
// FTSIM_BUDDY_MUTANTS for that test only; everywhere else a hook is `false` and compiles away (the
// release protocol library has no hook and no global). Include it from .cpp files only: a hook in
// a header would differ between the two builds of the same inline function.
#ifdef FTSIM_BUDDY_MUTANTS
#include "tests/support/buddy_mutants.hpp"  // a test build only: the mutation check's planted faults
#else
#define FTSIM_BUDDY_MUTANT(name) false
#endif
