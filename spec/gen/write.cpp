// Generated files are written only when their text changes, so that regenerating an unchanged spec
// (a generator edit, a touched YAML) leaves their timestamps alone and Ninja's restat keeps every
// dependent target (all C++ and every Verilated model) from rebuilding.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "model.hpp"

namespace axcore::specgen {

void write_if_changed(const std::string& path, const std::string& text) {
  {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      const std::string old{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      if (old == text) return;
    }
  }
  // Write beside it and rename, so a reader (another build) never sees half a file.
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot write " + tmp);
    f << text;
    if (!f.flush()) throw std::runtime_error("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot replace " + path);
}

}  // namespace axcore::specgen
