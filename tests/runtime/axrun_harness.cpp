#include "axrun_harness.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "axcore/ref/npy.hpp"
#include "axcore/runtime/buffer_image.hpp"

namespace axcore::runtime::testing_support {

namespace fs = std::filesystem;

Scratch::Scratch(const std::string& tag) {
  static std::atomic<unsigned> n{0};
  dir_ = fs::temp_directory_path() / ("axcore_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
  fs::remove_all(dir_);
  fs::create_directories(dir_);
}

Scratch::~Scratch() {
  if (!std::getenv("AXCORE_KEEP_TMP")) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

AxrunRun run_axrun(const Scratch& s, const std::string& name, const Bundle& b, const Arrays& inputs,
                   const std::string& backend, const std::string& extra) {
  const fs::path bundle = s / (name + ".axb");
  if (!fs::exists(bundle)) save_bundle(bundle, b);
  std::string cmd = std::string(AXRUN) + " " + bundle.string() + " --backend " + backend + " -q";
  for (const auto& [in, arr] : inputs) {
    const fs::path f = s / (name + "." + in + ".npy");
    ref::save_npy(f.string(), arr);
    cmd += " --input " + in + "=" + f.string();
  }
  AxrunRun r;
  const fs::path out = s / (name + "." + backend);
  r.trace = s / (name + "." + backend + ".trace");
  cmd += " --output-dir " + out.string() + " --trace " + r.trace.string() + " " + extra;
  r.exec = sh(cmd);
  if (r.exec.rc == 0) {
    for (const auto& buf : b.buffers)
      if (buf.role == BufferRole::OUTPUT)
        r.outputs.emplace(buf.name, ref::load_npy((out / (buf.name + ".npy")).string()));
  }
  if (fs::exists(r.trace) && fs::file_size(r.trace) > 0) r.records = trace::read_trace_file(r.trace.string());
  return r;
}

Exec axtrace_compare(const fs::path& a, const fs::path& b) {
  return sh(std::string(AXTRACE) + " compare " + a.string() + " " + b.string());
}

std::string array_difference(const ref::AnyArray& want, const ref::AnyArray& got) {
  if (dtype_of(want) != dtype_of(got) || shape_of(want) != shape_of(got))
    return "expected " + std::string(spec::to_string(dtype_of(want))) + " " + shape_text(shape_of(want)) + ", got " +
           std::string(spec::to_string(dtype_of(got))) + " " + shape_text(shape_of(got));
  const auto a = array_bytes(want), b = array_bytes(got);
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i])
      return "first differing byte " + std::to_string(i) + " (element " +
             std::to_string(i / dtype_bytes(dtype_of(want))) + "): expected " + std::to_string(a[i]) + ", got " +
             std::to_string(b[i]);
  return "";
}

}  // namespace axcore::runtime::testing_support
