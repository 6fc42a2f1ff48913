#pragma once
// What an `-a` value names, decided in one place: a registered name (a built-in, or an algorithm
// a file loaded before registered), a plugin library ("PATH" or "PATH:NAME"), or a Python
// submission (a .py file, or a folder holding submission.py). The two kinds of file are code Pacer
// did not build: they run contained (apps/pacer/contained_run.h, tune/contained_trial.h) and only
// the training program loads them (algorithms/plugin_loader.h). Torch-free.
//
//   const pacer::AlgorithmReference ref = pacer::algorithm_reference("./libsignum.so");
//   if (ref.untrusted()) ...;                  // a library: run its trials contained
//   ref.file.canonical;                        // where its record is kept once loaded
#include <string>

namespace pacer {

// The file an `-a` value names: "PATH" or "PATH:NAME" for a plugin library (path: PATH as given;
// canonical: where it is recorded), the .py file or a folder's submission.py for a Python
// submission.
struct AlgorithmFile {
  std::string path;
  std::string canonical;
  std::string name;  // after ':'; empty: the file's only algorithm (or, listing, all of them)
  bool python = false;
};

struct AlgorithmReference {
  enum class Kind { name, library, python };
  Kind kind = Kind::name;
  std::string value;   // as given
  AlgorithmFile file;  // for a library or a submission; empty for a name

  bool names_a_file() const { return kind != Kind::name; }
  // Code Pacer did not build: each of its trials runs in a process of its own.
  bool untrusted() const { return names_a_file(); }
  // A library named without ":NAME": every algorithm it defines (for `pacer list`), or its only one.
  bool whole_library() const { return kind == Kind::library && file.name.empty(); }
};

// Parses an `-a` value. A value with '/' or ending in ".so" (optionally ":NAME") is a library
// unless it is a submission: a ".py" path (with '/', or an existing file) or a folder (with '/')
// holding submission.py. Anything else is a name, checked where names are looked up.
AlgorithmReference algorithm_reference(const std::string& value);

}  // namespace pacer
