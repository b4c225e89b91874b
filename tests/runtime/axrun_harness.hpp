// Runs a bundle through the `axrun` and `axtrace` executables, as a user would: the bundle and its
// inputs written to a scratch folder, axrun run on a backend with --trace, the outputs (.npy) and
// the canonical trace read back. Each run is its own process, so the TLM (one SystemC elaboration
// per process) runs any number of times from one test.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "axcore/runtime/program.hpp"
#include "axcore/trace/record.hpp"
#include "shell.hpp"

namespace axcore::runtime::testing_support {

struct AxrunRun {
  Exec exec;
  Arrays outputs;  // every OUTPUT buffer, when the run succeeded
  std::filesystem::path trace;
  std::vector<trace::Record> records;
};

// A scratch folder, removed with the object (kept when AXCORE_KEEP_TMP is set).
class Scratch {
 public:
  explicit Scratch(const std::string& tag);
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path operator/(const std::string& name) const { return dir_ / name; }

 private:
  std::filesystem::path dir_;
};

// Writes `b` as `<name>.axb` and the inputs as `<name>.<input>.npy` into `s`, runs axrun on
// `backend` with `extra` arguments; outputs in `<name>.<backend>/`, trace `<name>.<backend>.trace`.
AxrunRun run_axrun(const Scratch& s, const std::string& name, const Bundle& b, const Arrays& inputs,
                   const std::string& backend, const std::string& extra = "");

// `axtrace compare A B`.
Exec axtrace_compare(const std::filesystem::path& a, const std::filesystem::path& b);

// Byte-exact equality of two arrays (dtype, shape, data); "" when equal, else what differs.
std::string array_difference(const ref::AnyArray& want, const ref::AnyArray& got);

}  // namespace axcore::runtime::testing_support
