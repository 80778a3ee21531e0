#include "sim/config/prediction_config.hpp"

namespace ftsim::config {

PredictionConfig read_prediction(JsonReader reader) {
  reader.expect_object();
  PredictionConfig p;
  p.lead_time = reader.at("lead_time").as_seconds();
  auto recall = reader.at("recall");
  p.recall = recall.as_number();
  if (!(p.recall >= 0 && p.recall <= 1)) recall.fail_expected("a share of the failures announced, from 0 to 1");
  auto precision = reader.at("precision");
  p.precision = precision.as_number();
  // 0 would mean infinitely many false alarms per true one.
  if (!(p.precision > 0 && p.precision <= 1)) {
    precision.fail_expected("a share of the alarms that are true, greater than 0 and at most 1");
  }
  if (auto spawn = reader.find("spawn")) p.spawn = spawn->as_seconds();
  if (auto chunk = reader.find("chunk")) {
    p.chunk = chunk->as_bytes();
    if (p.chunk == 0) chunk->fail_expected("a chunk size of at least 1 byte");
  }
  reader.finish();
  return p;
}

}  // namespace ftsim::config
