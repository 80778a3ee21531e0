// The uncoordinated protocol's METIS clusters (protocols/uncoordinated/unco_clusters.cpp): as many
// non-empty clusters as asked, neighbours together.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "protocols/uncoordinated/unco_options.hpp"

using ftsim::protocols::uncoordinated::metis_clusters;

namespace {
// The communication matrix of a rows x columns grid of nodes exchanging halos with their neighbours.
std::vector<std::vector<std::uint64_t>> grid(std::size_t rows, std::size_t columns) {
  const std::size_t nodes = rows * columns;
  std::vector<std::vector<std::uint64_t>> matrix(nodes, std::vector<std::uint64_t>(nodes, 0));
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < columns; ++c) {
      const std::size_t n = r * columns + c;
      if (c + 1 < columns) matrix[n][n + 1] = matrix[n + 1][n] = 8192;
      if (r + 1 < rows) matrix[n][n + columns] = matrix[n + columns][n] = 8192;
    }
  }
  return matrix;
}
}  // namespace

TEST_CASE("METIS clusters: as many non-empty clusters as asked, of balanced sizes", "[uncoordinated][clusters]") {
  for (const auto& [rows, columns, parts] : {std::tuple{2, 2, 2}, {1, 4, 2}, {2, 2, 3}, {4, 4, 2}, {4, 4, 4}, {8, 8, 4},
                                             {8, 8, 8}, {8, 8, 16}, {1, 3, 2}}) {
    const auto cluster = metis_clusters(grid(rows, columns), parts);
    INFO(rows << " x " << columns << " nodes, " << parts << " clusters");
    REQUIRE(cluster.size() == std::size_t(rows * columns));
    std::vector<std::size_t> sizes(parts, 0);
    for (const std::uint32_t c : cluster) {
      REQUIRE(c < std::uint32_t(parts));
      ++sizes[c];
    }
    const std::size_t nodes = rows * columns;
    for (const std::size_t size : sizes) {
      CHECK(size > 0);
      CHECK(size <= (nodes + parts - 1) / parts + 1);  // METIS's default imbalance allows one more
    }
  }
}

TEST_CASE("METIS clusters: two separate pairs are clustered pair by pair", "[uncoordinated][clusters]") {
  std::vector<std::vector<std::uint64_t>> matrix(4, std::vector<std::uint64_t>(4, 0));
  matrix[0][2] = matrix[2][0] = 1000;  // 0-2 and 1-3 talk, nothing else
  matrix[1][3] = matrix[3][1] = 1000;
  const auto cluster = metis_clusters(matrix, 2);
  CHECK(cluster[0] == cluster[2]);
  CHECK(cluster[1] == cluster[3]);
  CHECK(cluster[0] != cluster[1]);
}
