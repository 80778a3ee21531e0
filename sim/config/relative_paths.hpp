#pragma once
// Config keys whose values name files relative to the config's own directory (/application/file,
// /platform/xml, /failures/file). A config document written somewhere else (a sweep writes one per
// point into its output directory) must carry them as absolute paths to keep meaning the same files.
#include <string>

#include <nlohmann/json.hpp>

namespace ftsim::config {

// The document with every relative file path made absolute against the directory of `origin` (the
// config file it was read from). Values that are not strings are left for the loader to reject.
nlohmann::json with_absolute_file_paths(nlohmann::json document, const std::string& origin);

}  // namespace ftsim::config
