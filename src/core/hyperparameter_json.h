#pragma once
// A hyperparameter value as JSON and back, in one place: numbers as nlohmann writes a double,
// booleans as true/false, text as a string. Torch-free; not part of the SDK.
//
//   nlohmann::ordered_json j = pacer::value_json(pacer::HyperparameterValue::text("ADAM"));  // "ADAM"
//   pacer::HyperparameterValue v = pacer::value_from_json(j, "space.json: 'grafting_type'");
#include <nlohmann/json.hpp>
#include <string>

#include "core/hyperparameters.h"

namespace pacer {

nlohmann::ordered_json value_json(const HyperparameterValue& value);
// A number, a boolean or a string; InputError naming `where` for null, a list or an object.
HyperparameterValue value_from_json(const nlohmann::ordered_json& json, const std::string& where);

}  // namespace pacer
