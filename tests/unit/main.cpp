// Catch2 v2 test runner for all unit tests (tests/unit/*_test.cpp).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
