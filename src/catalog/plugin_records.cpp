#include "catalog/plugin_records.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>

#include "core/error.h"

namespace pacer {
namespace {

std::mutex g_mutex;
std::map<std::string, LoadedPlugin>& loaded() {
  static std::map<std::string, LoadedPlugin> plugins;  // by canonical path
  return plugins;
}

}  // namespace

std::string algorithm_name_of(const std::string& value) { return algorithm_name_of(algorithm_reference(value)); }

std::string algorithm_name_of(const AlgorithmReference& ref) {
  const std::string& value = ref.value;
  if (!ref.names_a_file()) return value;
  const AlgorithmFile& file = ref.file;
  const LoadedPlugin* plugin = loaded_plugin_at(file.canonical);
  if (!plugin) {
    throw InputError("algorithm '" + value + "' names a file that is not loaded (plugins and Python submissions " +
                     "are loaded by the commands that train)");
  }
  if (file.name.empty()) {
    if (plugin->algorithms.size() == 1) return plugin->algorithms.front();
    std::string names;
    for (const auto& n : plugin->algorithms) names += (names.empty() ? "" : ", ") + n;
    throw InputError("algorithm plugin '" + file.path + "' defines several algorithms (" + names +
                     "): pick one with " + file.path + ":NAME");
  }
  for (const auto& n : plugin->algorithms)
    if (n == file.name) return n;
  throw InputError("algorithm plugin '" + file.path + "' defines no algorithm '" + file.name + "'");
}

// FNV-1a over the bytes: not a security check, a way to tell a rebuilt library from the old one.
std::string content_hash(const std::vector<std::string>& paths) {
  uint64_t h = 1469598103934665603ull;
  for (const auto& path : paths) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError("algorithm file '" + path + "': cannot be read");
    char buffer[1 << 16];
    while (in.read(buffer, sizeof(buffer)) || in.gcount() > 0) {
      for (std::streamsize i = 0; i < in.gcount(); ++i) {
        h ^= static_cast<unsigned char>(buffer[i]);
        h *= 1099511628211ull;
      }
    }
  }
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

const LoadedPlugin& record_loaded_plugin(const std::string& canonical, LoadedPlugin plugin) {
  std::lock_guard<std::mutex> lock(g_mutex);
  return loaded().emplace(canonical, std::move(plugin)).first->second;
}

const LoadedPlugin* loaded_plugin_at(const std::string& canonical) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto it = loaded().find(canonical);
  return it == loaded().end() ? nullptr : &it->second;
}

const LoadedPlugin* plugin_of(const std::string& algorithm) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (const auto& [path, plugin] : loaded()) {
    for (const auto& n : plugin.algorithms)
      if (n == algorithm) return &plugin;
  }
  return nullptr;
}

}  // namespace pacer
