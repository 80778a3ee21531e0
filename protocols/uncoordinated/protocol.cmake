# The uncoordinated protocol computes process clusters with METIS (Debian libmetis-dev).
find_path(METIS_INCLUDE_DIR metis.h REQUIRED)
find_library(METIS_LIBRARY metis REQUIRED)
target_include_directories(ftsim_protocols PRIVATE ${METIS_INCLUDE_DIR})
target_link_libraries(ftsim_protocols PUBLIC ${METIS_LIBRARY})
