// A regression suite in YAML: tests (a model, a bundle, a random-program seed range or a plain
// command), the backends and configurations to run them on, how results are judged, a timeout
// and tags. See docs/regress.md for the format.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace axcore::regress {

// A malformed suite: the message starts with "file:line:col: ".
class SuiteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Kind { MODEL, BUNDLE, RANDOM, COMMAND };
enum class Mode { BIT_EXACT, TOLERANCE, TRACE_EQUIVALENT };
const char* to_string(Kind k);
const char* to_string(Mode m);

struct TestSpec {
  std::string name;
  Kind kind = Kind::COMMAND;
  std::filesystem::path source;                         // model YAML, bundle, or RANDOM's saved program JSON (absolute)
  std::map<std::string, std::filesystem::path> inputs;  // bundle/model input name -> .npy
  uint64_t seed = 1;                                    // input data seed; first program seed of RANDOM
  unsigned count = 1;                                   // RANDOM: programs (seeds seed .. seed+count-1)
  std::string random_kind = "dma";                      // RANDOM: dma, matmul or dpu (axrand --kind)
  std::vector<std::string> command;                     // COMMAND: argv with {out} {cores} {seed} {suite_dir}
  std::vector<std::string> backends;                    // ref, tlm, rtl, fpga (COMMAND: ignored)
  std::vector<unsigned> cores;                          // configurations
  Mode mode = Mode::BIT_EXACT;
  double atol = 0, rtol = 0;  // TOLERANCE
  double timeout_s = 600;     // per job
  std::vector<std::string> tags;
  int line = 0;  // where it was declared
};

// `launcher:` of a suite: `launcher: slurm` or `launcher: {kind: slurm, retries: 2, sbatch: [--partition=x]}`;
// axregress's --launcher / --retries / --sbatch-arg override it.
struct LauncherConfig {
  std::string kind = "local";  // local | slurm
  unsigned retries = 2;        // Slurm: resubmissions of a job lost to a node failure
  std::vector<std::string> sbatch_args;
};

struct Suite {
  std::string name;
  std::filesystem::path file;
  std::vector<TestSpec> tests;
  LauncherConfig launcher;
};

Suite load_suite(const std::filesystem::path& file);
Suite parse_suite(const std::string& yaml, const std::filesystem::path& file);  // file names errors

// One unit of scheduling: a test in one configuration (and, for RANDOM, one seed).
struct Job {
  const TestSpec* test = nullptr;
  unsigned cores = 1;
  uint64_t seed = 1;
  std::string id;  // "name@c1", "name#17@c4"; unique in a suite, safe as a folder name
};

// Jobs of the tests carrying at least one of `tags` (all tests when empty), in suite order.
std::vector<Job> expand(const Suite& suite, const std::vector<std::string>& tags);

}  // namespace axcore::regress
